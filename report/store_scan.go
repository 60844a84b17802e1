package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// ErrStopScan, returned by a ScanRounds callback, ends the scan early
// without an error.
var ErrStopScan = errors.New("report: scan stopped")

// Scan calls fn for every round of the store, in append order, holding
// one batch of lines at a time instead of every round: a fleet store of
// 500,000 cells is resumed this way (issue 26). A missing file is an empty
// store. What Load skips, Scan skips and reports the same way.
func (s *Store) Scan(fn func(Round) error) (LoadResult, error) {
	if s == nil {
		return LoadResult{}, ErrNoStore
	}
	f, err := os.Open(s.path)
	if os.IsNotExist(err) {
		return LoadResult{}, nil
	}
	if err != nil {
		return LoadResult{}, fmt.Errorf("report: load: %w", err)
	}
	defer f.Close()
	return ScanRounds(f, fn)
}

// scanBatch is the number of lines decoded together by one worker.
const scanBatch = 512

// scanLine is one non-empty line of a store and what decoding made of it.
type scanLine struct {
	no    int  // 1-based line number
	last  bool // no byte follows the line: a line that does not decode is torn
	body  []byte
	round Round
	err   error
}

// batch is a run of lines; done is closed once every line is decoded.
type batch struct {
	lines []scanLine
	total int // lines read up to the end of this batch, empty ones included
	rerr  error
	done  chan struct{}
}

// ScanRounds is ReadRounds that hands each round to fn instead of keeping
// it. The lines are decoded by up to GOMAXPROCS workers and fn is called in
// append order from the calling goroutine. An error from fn ends the scan
// and is returned (ErrStopScan ends it with none).
func ScanRounds(r io.Reader, fn func(Round) error) (LoadResult, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			d := newLineDecoder()
			for b := range work {
				for i := range b.lines {
					l := &b.lines[i]
					l.round, l.err = d.decode(l.body)
					if l.err != nil && !l.last {
						l.err = &LineError{Line: l.no, Text: cut(l.body, 120), Err: l.err}
					}
					l.body = nil
				}
				close(b.done)
			}
		})
	}
	go func() {
		defer close(order)
		defer close(work)
		readBatches(r, work, order, stop)
	}()
	defer func() {
		close(stop)
		for b := range order { // let the reader end
			<-b.done
		}
		wg.Wait()
	}()
	var res LoadResult
	for b := range order {
		<-b.done
		for i := range b.lines {
			l := &b.lines[i]
			if l.err == nil {
				if err := fn(l.round); err != nil {
					res.Lines = l.no
					if errors.Is(err, ErrStopScan) {
						err = nil
					}
					return res, err
				}
				continue
			}
			if l.last {
				res.Lines, res.Torn, res.TornLine = l.no, true, l.no
				return res, nil
			}
			res.Corrupt = append(res.Corrupt, l.corrupt())
		}
		res.Lines = b.total
		if b.rerr != nil {
			return res, fmt.Errorf("report: read store: %w", b.rerr)
		}
	}
	return res, nil
}

// corrupt is the *LineError the worker made of a line that did not decode.
func (l *scanLine) corrupt() *LineError {
	var le *LineError
	if errors.As(l.err, &le) {
		return le
	}
	return &LineError{Line: l.no, Err: l.err}
}

// scanChunk is the size of one read: the lines of a batch are slices of
// the chunks they were read in, not a copy each.
var scanChunk = 256 << 10

// readBatches reads r into batches of lines and hands each to a worker
// (work) and, in order, to the caller (order), until EOF, a read error or
// stop. A line is the bytes up to a newline, or up to EOF for the last.
func readBatches(r io.Reader, work, order chan<- *batch, stop <-chan struct{}) {
	n := 0
	b := &batch{lines: make([]scanLine, 0, scanBatch), done: make(chan struct{})}
	send := func() bool {
		b.total = n
		select {
		case order <- b:
		case <-stop:
			return false
		}
		select {
		case work <- b:
		case <-stop:
			close(b.done)
			return false
		}
		b = &batch{lines: make([]scanLine, 0, scanBatch), done: make(chan struct{})}
		return true
	}
	var tail []byte // a line begun in the last chunk
	eof := false
	for !eof {
		buf := make([]byte, len(tail), max(scanChunk, 2*len(tail)))
		copy(buf, tail)
		for len(buf) < cap(buf) {
			m, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+m]
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				b.rerr = err
				eof = true
				break
			}
		}
		rest := buf
		for len(rest) > 0 {
			nl := bytes.IndexByte(rest, '\n')
			if (nl < 0 || nl == len(rest)-1) && !eof {
				// The rest of the line is in the next chunk, or it is
				// not known yet whether anything follows it.
				break
			}
			if nl < 0 && b.rerr != nil {
				break // cut by the read error: not a line
			}
			line := rest
			if nl >= 0 {
				line, rest = rest[:nl], rest[nl+1:]
			} else {
				rest = nil
			}
			n++
			body := bytes.TrimSpace(line)
			if len(body) == 0 {
				continue
			}
			// Last: nothing follows the line in the file.
			last := eof && len(rest) == 0 && b.rerr == nil
			b.lines = append(b.lines, scanLine{no: n, last: last, body: body})
			if len(b.lines) == scanBatch && !send() {
				return
			}
		}
		tail = rest
	}
	send()
}
