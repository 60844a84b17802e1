package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/rocekit/rocekit/netperf"
)

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
		buf, werr = netperf.AppendInterim(buf[:0], it)
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
	out := netperf.NewResultJSON(res, err)
	if res == nil && out.ParseError == nil {
		out.ParseError = netperf.NewParseErrorJSON(err)
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
