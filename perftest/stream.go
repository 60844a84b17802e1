package perftest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
)

// Stream parses the text output of a test while it runs and delivers its
// rows as they arrive: one BW row every -D seconds with --run_infinitely,
// one row per size with -a. Rows are not kept, so a stream that runs for
// days uses constant memory.
//
//	cmd := exec.Command("stdbuf", "-oL", "ib_write_bw", "--run_infinitely", "-D", "1", "-d", "rxe0", "198.18.0.1")
//	out, _ := cmd.StdoutPipe()
//	cmd.Start()
//	s := perftest.NewStream(out)
//	for row, err := range s.Rows() {
//		if err != nil { ... }            // a garbled line; the stream goes on
//		bw := row.(perftest.BWRow)
//		fmt.Println(bw.BWAvgGbps)
//	}
//
// perftest's stdout is block-buffered in a pipe: run it under stdbuf -oL
// or a pty, or rows arrive in bursts. The loop ends at EOF (the process
// exited or was stopped) or when the caller breaks out of it.
type Stream struct {
	r       io.Reader
	p       *textParser
	started bool
}

// NewStream returns a Stream that reads r.
func NewStream(r io.Reader) *Stream {
	return &Stream{r: r, p: newTextParser(false)}
}

// Rows returns the rows of the main table as they are read: BWRow or
// LatRow values. A line that does not parse yields a *ParseError and the
// stream goes on; at the end, a failure the output reported yields its
// *Error, and a truncated output (a table header without rows) a
// *ParseError wrapping ErrTruncated. Rows can be ranged over once.
func (s *Stream) Rows() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		if s.started {
			yield(nil, errors.New("perftest: Stream.Rows ranged over twice"))
			return
		}
		s.started = true
		if s.r == nil {
			yield(nil, errNilReader)
			return
		}
		var pending []Row
		var errs []error
		s.p.onRow = func(r Row) { pending = append(pending, r) }
		s.p.onErr = func(err error) { errs = append(errs, err) }
		sc := bufio.NewScanner(s.r)
		sc.Buffer(make([]byte, 0, 64*1024), maxLine)
		for sc.Scan() {
			s.p.feed(sc.Bytes())
			for _, r := range pending {
				if !yield(r, nil) {
					return
				}
			}
			for _, err := range errs {
				if !yield(nil, err) {
					return
				}
			}
			pending, errs = pending[:0], errs[:0]
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = newParseError(ErrParse, s.p.line+1, nil, fmt.Sprintf("line longer than %d bytes", maxLine))
			} else {
				err = fmt.Errorf("perftest: read: %w", err)
			}
			yield(nil, err)
			return
		}
		first := s.p.firstErr
		if err := s.p.finish(); err != nil && (first == nil || err != first) {
			yield(nil, err)
		}
	}
}

// Result returns what the stream has parsed so far: the title, header,
// kind, warnings and, at the end, the failure. Its BW and Lat are empty:
// rows are only delivered by Rows.
func (s *Stream) Result() *Result { return s.p.res }
