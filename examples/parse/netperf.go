package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rocekit/rocekit/netperf"
)

// interimOutput is one demo-mode (-D) interim result in the JSON.
type interimOutput struct {
	Value         *float64 `json:"value"`
	Unit          string   `json:"unit"`
	IntervalSec   float64  `json:"interval_sec"`
	EndingUnixSec float64  `json:"ending_unix_sec"`
}

// netperfTo parses a netperf output of any length (netperf.ParseStream)
// and writes its JSON to w: the interim results under "interims", one by
// one as they are read, then the rest of the object. A result netperf
// reported as a failure is a complete output; any other error the
// library returns is a broken one.
func netperfTo(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	n := 0
	var werr error
	res, err := netperf.ParseStream(r, func(it netperf.Interim) {
		if werr != nil {
			return
		}
		o := interimOutput{Unit: string(it.Unit), IntervalSec: it.IntervalSec, EndingUnixSec: it.EndingUnixSec}
		if isFinite(it.Value) {
			o.Value = &it.Value
		}
		b, merr := json.Marshal(o)
		if merr != nil {
			werr = merr
			return
		}
		if n == 0 {
			bw.WriteString("{\n  \"interims\": [\n    ")
		} else {
			bw.WriteString(",\n    ")
		}
		_, werr = bw.Write(b)
		n++
	})
	if werr != nil {
		return werr
	}
	var re *readError
	switch {
	case res == nil && errors.Is(err, netperf.ErrUnrecognized) && n == 0:
		return fmt.Errorf("%w: %v", errUnrecognised, err)
	case res == nil && err != nil && !errors.Is(err, netperf.ErrUnrecognized) && !errors.As(err, &re):
		err = &readError{err} // ParseStream's only other error: r failed
	}
	out := netperfJSON(res, err)
	if res == nil && out.ParseError == nil {
		out.ParseError = netperfParseError(err)
	}
	b, merr := marshal(out)
	if merr != nil {
		return merr
	}
	if n > 0 {
		bw.WriteString("\n  ],\n")
		b = b[2:] // the object's "{\n", written with the interims
	}
	bw.Write(b)
	if ferr := bw.Flush(); ferr != nil {
		return ferr
	}
	var tool *netperf.Error
	if errors.As(err, &tool) {
		return nil // netperf's own failure report: a complete output
	}
	return err
}

// netperfParseError is the "parse_error" object of any netperf error.
func netperfParseError(err error) map[string]any {
	kind, line := "garbled", 0
	var pe *netperf.ParseError
	if errors.As(err, &pe) {
		line = pe.Line
	}
	switch {
	case errors.Is(err, netperf.ErrTooLarge):
		kind = "too_large"
	case errors.Is(err, netperf.ErrTruncated):
		kind = "truncated"
	case errors.Is(err, netperf.ErrNoResult):
		kind = "no_result"
	}
	return parseErrorObject(kind, line, err)
}
