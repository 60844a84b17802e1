package netperf

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/internal/jsonfloat"
)

// ResultJSON is the JSON form of what a parser returned, the netperf part
// of the contract of examples/parse: tool, test, form, throughput_mbps,
// throughput and throughput_unit (as printed), trans_per_sec, udp, omni
// (selector name to value), version, warnings, and error (netperf's own
// failure report) or parse_error (why the output is not whole). Values
// JSON cannot carry (inf, nan) are null, with a warning. The demo-mode
// interim results are not in it: AppendInterim writes them one by one, as
// ParseStream reads them (a -D run has millions).
type ResultJSON struct {
	Tool           string            `json:"tool"`
	Test           string            `json:"test,omitempty"`
	Form           string            `json:"form"`
	ThroughputMbps *float64          `json:"throughput_mbps"`
	Throughput     *float64          `json:"throughput,omitempty"` // as printed, in ThroughputUnit
	ThroughputUnit string            `json:"throughput_unit,omitempty"`
	TransPerSec    *float64          `json:"trans_per_sec,omitempty"`
	UDP            *UDPStreamJSON    `json:"udp,omitempty"`
	Omni           map[string]string `json:"omni,omitempty"`
	Version        string            `json:"version,omitempty"`
	Warnings       []string          `json:"warnings"`
	Error          *ErrorJSON        `json:"error,omitempty"`
	ParseError     *ParseErrorJSON   `json:"parse_error,omitempty"`
}

// UDPStreamJSON is the JSON form of a UDPStream.
type UDPStreamJSON struct {
	SendMbps   *float64 `json:"send_mbps"`
	RecvMbps   *float64 `json:"recv_mbps"`
	Sent       uint64   `json:"sent"`
	Received   uint64   `json:"received"`
	SendErrors *uint64  `json:"send_errors"`
	LossRatio  *float64 `json:"loss_ratio"`
}

// ErrorJSON is the JSON form of a failure netperf reported (an *Error).
type ErrorJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// ParseErrorJSON is the "parse_error" object: why an output is not whole.
type ParseErrorJSON struct {
	// Kind is "too_large" (ErrTooLarge), "truncated" (ErrTruncated),
	// "no_result" (ErrNoResult) or "garbled" (any other error).
	Kind string `json:"kind"`
	// Line is the *ParseError's line; 0 when the error has none.
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// NewParseErrorJSON classifies a parser's error (err must not be nil).
func NewParseErrorJSON(err error) *ParseErrorJSON {
	kind, line := "garbled", 0
	var pe *ParseError
	if errors.As(err, &pe) {
		line = pe.Line
	}
	switch {
	case errors.Is(err, ErrTooLarge):
		kind = "too_large"
	case errors.Is(err, ErrTruncated):
		kind = "truncated"
	case errors.Is(err, ErrNoResult):
		kind = "no_result"
	}
	return &ParseErrorJSON{Kind: kind, Line: line, Message: err.Error()}
}

// NewResultJSON maps what a parser returned, a result (possibly partial
// or nil) and its error, to the JSON form: an *Error is "error", any other
// error "parse_error".
func NewResultJSON(res *Result, err error) ResultJSON {
	out := ResultJSON{Tool: "netperf", Warnings: []string{}}
	var tool *Error
	if errors.As(err, &tool) {
		out.Error = &ErrorJSON{Kind: string(tool.Kind), Message: tool.Message}
	} else if err != nil {
		out.ParseError = NewParseErrorJSON(err)
	}
	if res == nil {
		return out
	}
	out.Test, out.Form, out.Version = res.Test, string(res.Form), res.Version
	for _, w := range res.Warnings {
		s := "<nil>"
		if w != nil {
			s = w.Error()
		}
		out.Warnings = append(out.Warnings, s)
	}
	finite := func(name string, v *float64) *float64 {
		if v == nil || !isFinite(*v) {
			if v != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s is %v: written as null", name, *v))
			}
			return nil
		}
		return v
	}
	out.ThroughputMbps = finite("throughput_mbps", res.ThroughputMbps)
	if res.Throughput != nil {
		out.Throughput = finite("throughput", &res.Throughput.Value)
		out.ThroughputUnit = string(res.Throughput.Unit)
	}
	out.TransPerSec = finite("trans_per_sec", res.TransPerSec)
	if u := res.UDP; u != nil {
		loss := u.LossRatio
		out.UDP = &UDPStreamJSON{
			SendMbps: finite("udp.send_mbps", u.SendMbps), RecvMbps: finite("udp.recv_mbps", u.RecvMbps),
			Sent: u.Sent, Received: u.Received, SendErrors: u.SendErrors,
			LossRatio: finite("udp.loss_ratio", &loss),
		}
	}
	if res.Omni != nil {
		out.Omni = map[string]string{}
		for i, s := range res.Omni.Selectors {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			out.Omni[name] = s.Value
		}
	}
	return out
}

// InterimJSON is the JSON form of one demo-mode (-D) interim result, as
// AppendInterim writes it; a value that is inf or nan is null.
type InterimJSON struct {
	Value         *float64 `json:"value"`
	Unit          string   `json:"unit"`
	IntervalSec   float64  `json:"interval_sec"`
	EndingUnixSec float64  `json:"ending_unix_sec"`
}

// AppendInterim appends to dst the JSON of an interim result, as
// json.Marshal of its InterimJSON writes it, without reflection where it
// can: a -D run has millions of them. The error is json.Marshal's (an
// interval or ending that is inf or nan).
func AppendInterim(dst []byte, it Interim) ([]byte, error) {
	if !plainUnit(string(it.Unit)) || !isFinite(it.IntervalSec) || !isFinite(it.EndingUnixSec) {
		o := InterimJSON{Unit: string(it.Unit), IntervalSec: it.IntervalSec, EndingUnixSec: it.EndingUnixSec}
		if isFinite(it.Value) {
			o.Value = &it.Value
		}
		out, err := json.Marshal(o)
		return append(dst, out...), err
	}
	dst = append(dst, `{"value":`...)
	if isFinite(it.Value) {
		dst = jsonfloat.Append(dst, it.Value)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"unit":"`...)
	dst = append(dst, it.Unit...)
	dst = append(dst, `","interval_sec":`...)
	dst = jsonfloat.Append(dst, it.IntervalSec)
	dst = append(dst, `,"ending_unix_sec":`...)
	dst = jsonfloat.Append(dst, it.EndingUnixSec)
	return append(dst, '}'), nil
}

func isFinite(f float64) bool { return f-f == 0 }

// plainUnit reports whether a unit needs no JSON escaping (json.Marshal
// also escapes <, > and &).
func plainUnit(u string) bool {
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(`"\\<>&`, c) >= 0 {
			return false
		}
	}
	return true
}
