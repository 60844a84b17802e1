package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"sort"

	"github.com/rocekit/rocekit/perftest"
)

// streamAbove is the input size from which a perftest text output is
// parsed as a stream: its rows are written as they are read and never
// kept, so memory stays flat whatever the size (a 200 MB file took 3 GB
// read whole, so even 64 MiB read whole would pass 64 MiB of heap).
const streamAbove = 4 << 20

// streamable reports whether a prefix of the input is a perftest text
// output, the one form whose size grows without bound (-a, rows every
// -D seconds with --run_infinitely).
func streamable(prefix []byte) bool {
	switch perftest.Detect(prefix) {
	case perftest.FormTextBW, perftest.FormTextLat, perftest.FormTextLatDuration:
		return true
	}
	return false
}

// parseStream writes the JSON of a perftest text output read from r: the
// same object as parse, with the rows under "bw" or "lat" written one by
// one as they arrive. It returns the output's parse error, if any, after
// the JSON is complete.
func parseStream(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := perftest.NewStream(r)
	key, n := "", 0
	var perr error
	for row, err := range s.Rows() {
		if err != nil {
			var pe *perftest.ParseError
			if errors.As(err, &pe) {
				perr = errors.Join(perr, err)
			}
			continue
		}
		b, merr := perftest.MarshalRow(row)
		if merr != nil {
			return merr
		}
		if n == 0 {
			key = "lat"
			if _, ok := row.(perftest.BWRow); ok {
				key = "bw"
			}
			io.WriteString(bw, "{\n  \""+key+"\": [\n    ")
		} else {
			io.WriteString(bw, ",\n    ")
		}
		bw.Write(b)
		n++
	}
	// The rest of the object: title, header, kind, warnings, failure.
	b, err := json.Marshal(s.Result())
	if err != nil {
		return err
	}
	var rest map[string]json.RawMessage
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	delete(rest, "bw")
	delete(rest, "lat")
	if perr != nil {
		// As parse writes it for an output read whole.
		pe, merr := json.Marshal(perftestParseError(perr))
		if merr != nil {
			return merr
		}
		rest["parse_error"] = pe
	}
	if n == 0 {
		io.WriteString(bw, "{")
	} else {
		io.WriteString(bw, "\n  ]")
	}
	keys := make([]string, 0, len(rest))
	for k := range rest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 || n > 0 {
			io.WriteString(bw, ",")
		}
		kb, _ := json.Marshal(k)
		io.WriteString(bw, "\n  ")
		bw.Write(kb)
		io.WriteString(bw, ": ")
		bw.Write(rest[k])
	}
	io.WriteString(bw, "\n}\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	return perr
}
