package host

import (
	"bytes"
	"context"
	"io"
	"iter"
	"strings"
	"sync"
)

// maxLineBytes splits a line that grows longer without a newline, so that a
// stream with no newlines cannot grow one line without bound.
const maxLineBytes = 64 << 10

// Output is one stream (standard output or standard error) of a process: its
// lines as they arrive, and the whole of it (or, with Cmd.MaxOutputBytes,
// its first and last lines). It is safe for concurrent use.
type Output struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced when lines are added or the stream ends
	ended   chan struct{} // closed when the stream ends
	onLine  func(string)
	max     int // bytes kept, 0 = all
	lineMax int
	// head and tail hold the stream's pieces as they came, each line with
	// its newline; a line longer than lineMax is split into pieces
	// without one, so that Bytes is the stream byte for byte.
	head     []string // the first lines, up to max/2 bytes (all lines when max is 0)
	headSize int
	headFull bool
	tail     []string // the most recent lines after head
	tailSize int
	tailBase int // index of tail[0] among all lines
	total    int // lines seen
	dropped  int
	dropSize int
	closed   bool
}

func newOutput(max, lineMax int, onLine func(string)) *Output {
	if lineMax <= 0 {
		lineMax = maxLineBytes
		if max > 0 && max/2 < lineMax {
			lineMax = max / 2
		}
	}
	if lineMax < 1 {
		lineMax = 1
	}
	return &Output{changed: make(chan struct{}), ended: make(chan struct{}), onLine: onLine, max: max, lineMax: lineMax}
}

// Bytes returns the output kept so far, exactly as the process wrote it
// (also lines of any length). With a bound, the dropped middle is simply
// absent (see Dropped).
func (o *Output) Bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b bytes.Buffer
	for _, part := range [][]string{o.head, o.tail} {
		for _, l := range part {
			b.WriteString(l)
		}
	}
	return b.Bytes()
}

// String returns Bytes as a string.
func (o *Output) String() string { return string(o.Bytes()) }

// Dropped returns how many lines, and bytes (newlines included), were not
// kept because of Cmd.MaxOutputBytes.
func (o *Output) Dropped() (lines, bytes int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped, o.dropSize
}

// Closed reports whether the stream has ended (the process closed it, or
// it was abandoned after the process exited).
func (o *Output) Closed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}

func (o *Output) endedChan() <-chan struct{} { return o.ended }

// Lines yields the stream's lines, without newlines, from the first one,
// waiting for each as it arrives, until the stream ends or ctx is done. Lines
// dropped by Cmd.MaxOutputBytes before the iterator reached them are
// skipped. Several iterators may run at once.
//
//	for line := range p.Stdout().Lines(ctx) {
//		if strings.Contains(line, "Waiting for client") { ... }
//	}
func (o *Output) Lines(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		next := 0
		for {
			o.mu.Lock()
			batch, after := o.linesFrom(next)
			closed, changed := o.closed, o.changed
			o.mu.Unlock()
			for _, l := range batch {
				if !yield(l) {
					return
				}
			}
			next = after
			if len(batch) > 0 {
				continue
			}
			if closed {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}
}

// linesFrom returns the kept lines with index ≥ i, without newlines, and
// the index after them.
func (o *Output) linesFrom(i int) ([]string, int) {
	trim := func(ls []string) []string {
		out := make([]string, len(ls))
		for j, l := range ls {
			out[j] = strings.TrimSuffix(l, "\n")
		}
		return out
	}
	if i < len(o.head) {
		return trim(o.head[i:]), len(o.head)
	}
	if i < o.tailBase {
		i = o.tailBase
	}
	if i-o.tailBase < len(o.tail) {
		return trim(o.tail[i-o.tailBase:]), o.tailBase + len(o.tail)
	}
	return nil, i
}

// tailString returns about the last n bytes of the stream, cut at a line
// start when it can be.
func (o *Output) tailString(n int) string {
	s := o.String()
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}

// add stores one line (eol: it ended in a newline; a piece of a long line
// or the last line of the stream did not) and wakes the iterators.
func (o *Output) add(line string, eol bool) {
	if o.onLine != nil {
		o.onLine(line)
	}
	if eol {
		line += "\n"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	size := len(line)
	o.total++
	switch {
	case o.max == 0:
		o.head = append(o.head, line)
	case !o.headFull && o.headSize+size <= o.max/2:
		o.head = append(o.head, line)
		o.headSize += size
	default:
		if !o.headFull {
			o.headFull = true
			o.tailBase = o.total - 1
		}
		o.tail = append(o.tail, line)
		o.tailSize += size
		for o.tailSize > o.max-o.headSize && len(o.tail) > 1 {
			o.tailSize -= len(o.tail[0])
			o.dropSize += len(o.tail[0])
			o.dropped++
			o.tail[0] = ""
			o.tail = o.tail[1:]
			o.tailBase++
		}
	}
	o.wakeLocked()
}

func (o *Output) wakeLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// finish marks the stream ended.
func (o *Output) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.closed = true
		close(o.ended)
		o.wakeLocked()
	}
}

// pump reads r to its end (or its first error), splitting lines, then
// closes c (when set) and marks the stream ended, so that an ended stream
// holds no file descriptor.
func (o *Output) pump(r io.Reader, c io.Closer) {
	defer o.finish()
	if c != nil {
		defer c.Close()
	}
	buf := make([]byte, 32<<10)
	var partial []byte
	for {
		n, err := r.Read(buf)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				partial = append(partial, data...)
				// Keep up to lineMax: a newline may end it next.
				for len(partial) > o.lineMax {
					o.add(string(partial[:o.lineMax]), false)
					partial = append(partial[:0], partial[o.lineMax:]...)
				}
				break
			}
			partial = append(partial, data[:i]...)
			for len(partial) > o.lineMax {
				o.add(string(partial[:o.lineMax]), false)
				partial = append(partial[:0], partial[o.lineMax:]...)
			}
			o.add(string(partial), true)
			partial = partial[:0]
			data = data[i+1:]
		}
		if err != nil {
			// io.EOF, or a pipe closed after the process exited, or a lost
			// connection: each ends the stream.
			if len(partial) > 0 {
				o.add(string(partial), false)
			}
			return
		}
	}
}
