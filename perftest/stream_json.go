package perftest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"sort"
)

// ParseErrorJSON is the "parse_error" object of the JSON contract of
// examples/parse: why an output is not whole.
type ParseErrorJSON struct {
	// Kind is "truncated" when the error wraps ErrTruncated, else
	// "garbled" (an output without a result is one or the other, by its
	// ParseError.Err); examples/parse adds kinds of its own checks.
	Kind string `json:"kind"`
	// Line is the *ParseError's line; 0 when the error has none.
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// NewParseErrorJSON classifies a parser's error (err must not be nil).
func NewParseErrorJSON(err error) ParseErrorJSON {
	out := ParseErrorJSON{Kind: "garbled", Message: err.Error()}
	var pe *ParseError
	if errors.As(err, &pe) {
		out.Line = pe.Line
	}
	if errors.Is(err, ErrTruncated) {
		out.Kind = "truncated"
	}
	return out
}

// WriteStreamJSON writes the JSON of a perftest text output read from r
// (a Stream): the object Result.MarshalJSON writes, with the rows under
// "bw" or "lat" written one by one as they are read and never kept, so
// memory stays flat whatever the size (-a, or rows every -D seconds with
// --run_infinitely), and "parse_error" when a line did not parse. It
// returns the output's parse errors, joined, after the JSON is complete.
func WriteStreamJSON(w io.Writer, r io.Reader) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := NewStream(r)
	key, n := "", 0
	var perr error
	for row, err := range s.Rows() {
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				perr = errors.Join(perr, err)
			}
			continue
		}
		b, merr := MarshalRow(row)
		if merr != nil {
			return merr
		}
		if n == 0 {
			key = "lat"
			if _, ok := row.(BWRow); ok {
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
		pe, merr := json.Marshal(NewParseErrorJSON(perr))
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
