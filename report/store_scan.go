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
// a few batches of lines at a time instead of every round: a fleet store
// of 500,000 cells is resumed this way (issue 26). Lines of the shape the
// library writes are decoded without encoding/json, and the short strings
// that repeat (parameter keys, host and NIC names) are shared between
// rounds; what a line decodes to is what encoding/json makes of it
// (lineDecoder). A missing file is an empty store. What Load skips, Scan
// skips and reports the same way.
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
	buf   []byte // what the lines are slices of
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
		b.release()
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
// the batch's buffer, not a copy each.
var scanChunk = 256 << 10

// batchPool keeps the batches the caller is done with: their buffers and
// line slices are reused, not left to the collector.
var batchPool sync.Pool

// newBatch returns an empty batch, a reused one when there is one.
func newBatch() *batch {
	b, _ := batchPool.Get().(*batch)
	if b == nil {
		b = &batch{lines: make([]scanLine, 0, scanBatch)}
	}
	b.lines, b.total, b.rerr, b.done = b.lines[:0], 0, nil, make(chan struct{})
	return b
}

// release hands b back for reuse once its rounds went to the caller.
func (b *batch) release() {
	clear(b.lines) // the rounds are the caller's now
	batchPool.Put(b)
}

// readBatches reads r into batches of lines and hands each to a worker
// (work) and, in order, to the caller (order), until EOF, a read error or
// stop. A line is the bytes up to a newline, or up to EOF for the last.
// Each batch holds the lines that begin in its buffer: the start of a line
// that goes on past the buffer's end is carried to the next buffer.
func readBatches(r io.Reader, work, order chan<- *batch, stop <-chan struct{}) {
	send := func(b *batch) bool {
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
		return true
	}
	n := 0
	var carry []byte // the start of a line not yet whole, or lines past a full batch
	var rerr error
	eof := false
	b := newBatch()
	for {
		need := max(scanChunk, 2*len(carry))
		if cap(b.buf) < need {
			b.buf = make([]byte, 0, need)
		}
		buf := append(b.buf[:0], carry...)
		for !eof && len(buf) < cap(buf) {
			m, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+m]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				rerr, eof = err, true
			}
		}
		b.buf = buf
		rest := buf
		for len(rest) > 0 && len(b.lines) < scanBatch {
			nl := bytes.IndexByte(rest, '\n')
			if (nl < 0 || nl == len(rest)-1) && !eof {
				// The rest of the line is in the next read, or it is
				// not known yet whether anything follows it.
				break
			}
			if nl < 0 && rerr != nil {
				rest = nil // cut by the read error: not a line
				break
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
			last := eof && len(rest) == 0 && rerr == nil
			b.lines = append(b.lines, scanLine{no: n, last: last, body: body})
		}
		carry = append(carry[:0], rest...)
		final := eof && len(carry) == 0
		if len(b.lines) == 0 && !final {
			continue // a line longer than the buffer: read on into a bigger one
		}
		b.total = n
		if final {
			b.rerr = rerr
		}
		if !send(b) || final {
			return
		}
		b = newBatch()
	}
}
