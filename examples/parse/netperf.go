package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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
	var buf []byte
	res, err := netperf.ParseStream(r, func(it netperf.Interim) {
		if werr != nil {
			return
		}
		buf, werr = appendInterim(buf[:0], it)
		if werr != nil {
			return
		}
		if n == 0 {
			bw.WriteString("{\n  \"interims\": [\n    ")
		} else {
			bw.WriteString(",\n    ")
		}
		_, werr = bw.Write(buf)
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

// appendInterim appends the JSON of an interim result, as json.Marshal
// of an interimOutput writes it, without reflection: a -D run has
// millions of them.
func appendInterim(b []byte, it netperf.Interim) ([]byte, error) {
	if !plainUnit(string(it.Unit)) || !isFinite(it.IntervalSec) || !isFinite(it.EndingUnixSec) {
		o := interimOutput{Unit: string(it.Unit), IntervalSec: it.IntervalSec, EndingUnixSec: it.EndingUnixSec}
		if isFinite(it.Value) {
			o.Value = &it.Value
		}
		out, err := json.Marshal(o)
		return append(b, out...), err
	}
	b = append(b, `{"value":`...)
	if isFinite(it.Value) {
		b = appendJSONFloat(b, it.Value)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"unit":"`...)
	b = append(b, it.Unit...)
	b = append(b, `","interval_sec":`...)
	b = appendJSONFloat(b, it.IntervalSec)
	b = append(b, `,"ending_unix_sec":`...)
	b = appendJSONFloat(b, it.EndingUnixSec)
	return append(b, '}'), nil
}

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

// appendJSONFloat formats a finite float as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
