// Package warnjson carries a result's warnings as errors in Go and as
// strings in JSON: the Warnings fields of nic, rxe, runbook, fleet and
// report (report.Summary, report.RDMAFacts) are Errors, so that callers
// use errors.As on them (a line number, a counter file) while their JSON,
// which crosses SSH in the runbook peer protocol and lands in examples'
// output files and stores, stays an array of strings.
//
//	var s struct{ Warnings warnjson.Errors `json:"warnings,omitempty"` }
//	s.Warnings = append(s.Warnings, fmt.Errorf("ring: %w", err))
//	json.Marshal(s) // {"warnings":["ring: ..."]}
package warnjson

import (
	"encoding/json"
	"errors"
)

// Errors is a list of warnings. It encodes as a JSON array of the
// errors' messages and decodes each string back into an error with that
// message (its type does not survive the trip).
type Errors []error

// MarshalJSON writes the messages; a nil error is written as "<nil>",
// as fmt prints it.
func (e Errors) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	s := Strings(e)
	if s == nil {
		s = []string{}
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads an array of strings (or null) back into errors.
func (e *Errors) UnmarshalJSON(b []byte) error {
	var s []string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == nil {
		*e = nil
		return nil
	}
	out := make(Errors, len(s))
	for i, m := range s {
		out[i] = errors.New(m)
	}
	*e = out
	return nil
}

// Strings returns the messages of errs, in order; nil for none.
func Strings(errs []error) []string {
	if len(errs) == 0 {
		return nil
	}
	s := make([]string, len(errs))
	for i, err := range errs {
		if err == nil {
			s[i] = "<nil>"
			continue
		}
		s[i] = err.Error()
	}
	return s
}
