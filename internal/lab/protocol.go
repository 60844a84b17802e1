package lab

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The guest agent reports to the host over a dedicated virtio serial port,
// never over the kernel console, so nothing the kernel prints can be taken
// for a result. Each record is one text line:
//
//	LAB1 <kind> <step> <base64 payload>\n
//
// Base64 keeps binary output and stray newlines from breaking the framing,
// and a line-based format survives a torn stream: a record is either whole
// or rejected.

// recordMagic starts every protocol line; the digit is the protocol version.
const recordMagic = "LAB1"

// maxRecordLine bounds one encoded line, so a corrupt stream cannot make the
// host buffer without limit. Agents send payload chunks of at most
// MaxChunk bytes.
const maxRecordLine = 1 << 20

// MaxChunk is the largest payload the agent puts in one record.
const MaxChunk = 48 << 10

// RecordKind says what a record carries.
type RecordKind string

// The record kinds, in the order a run produces them.
const (
	KindHello    RecordKind = "hello"  // payload: JSON AgentInfo
	KindLog      RecordKind = "log"    // payload: a message from the agent itself
	KindStart    RecordKind = "start"  // payload: JSON Step
	KindStdout   RecordKind = "stdout" // payload: a chunk of the step's stdout
	KindStderr   RecordKind = "stderr" // payload: a chunk of the step's stderr
	KindExit     RecordKind = "exit"   // payload: JSON ExitStatus
	KindFile     RecordKind = "file"   // payload: path of a collected file, relative to Plan.Collect
	KindFileData RecordKind = "fdata"  // payload: a chunk of the current file
	KindDone     RecordKind = "done"   // payload: empty; the agent finished and powers off
)

var knownKinds = map[RecordKind]bool{
	KindHello: true, KindLog: true, KindStart: true, KindStdout: true, KindStderr: true,
	KindExit: true, KindFile: true, KindFileData: true, KindDone: true,
}

// Record is one message from the guest agent.
type Record struct {
	Kind RecordKind
	Step int // index into Plan.Steps; -1 when the record belongs to no step
	Data []byte
}

// ErrProtocol is wrapped by every error about a malformed record.
var ErrProtocol = errors.New("lab: protocol error")

// AppendRecord appends the encoded line for r to dst.
func AppendRecord(dst []byte, r Record) []byte {
	dst = append(dst, recordMagic...)
	dst = append(dst, ' ')
	dst = append(dst, r.Kind...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(r.Step), 10)
	dst = append(dst, ' ')
	dst = base64.StdEncoding.AppendEncode(dst, r.Data)
	return append(dst, '\n')
}

// ParseRecord decodes one line (with or without its line ending).
func ParseRecord(line []byte) (Record, error) {
	line = bytes.TrimRight(line, "\r\n")
	fields := bytes.Split(line, []byte{' '})
	if len(fields) != 4 || string(fields[0]) != recordMagic {
		return Record{}, fmt.Errorf("%w: not a record: %.40q", ErrProtocol, line)
	}
	kind := RecordKind(fields[1])
	if !knownKinds[kind] {
		return Record{}, fmt.Errorf("%w: unknown record kind %.20q", ErrProtocol, kind)
	}
	step, err := strconv.Atoi(string(fields[2]))
	if err != nil || step < -1 {
		return Record{}, fmt.Errorf("%w: bad step %.20q", ErrProtocol, fields[2])
	}
	data, err := base64.StdEncoding.AppendDecode(nil, fields[3])
	if err != nil {
		return Record{}, fmt.Errorf("%w: %s payload: %v", ErrProtocol, kind, err)
	}
	return Record{Kind: kind, Step: step, Data: data}, nil
}

// RecordReader reads records from a stream, one line at a time.
type RecordReader struct {
	r    *bufio.Reader
	line int
}

// NewRecordReader returns a reader of the records in r.
func NewRecordReader(r io.Reader) *RecordReader {
	return &RecordReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next record. At the end of the stream it returns io.EOF;
// a final line without its newline (the guest died mid-write) gives
// io.ErrUnexpectedEOF. Errors about a line say its number; the reader can go
// on after them.
func (rr *RecordReader) Next() (Record, error) {
	var line []byte
	for {
		chunk, err := rr.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxRecordLine {
			rr.skipLine(err)
			rr.line++
			return Record{}, fmt.Errorf("%w: line %d longer than %d bytes", ErrProtocol, rr.line, maxRecordLine)
		}
		switch {
		case err == nil:
			rr.line++
			rec, perr := ParseRecord(line)
			if perr != nil {
				return Record{}, fmt.Errorf("line %d: %w", rr.line, perr)
			}
			return rec, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return Record{}, io.EOF
			}
			rr.line++
			return Record{}, fmt.Errorf("line %d: %w", rr.line, io.ErrUnexpectedEOF)
		default:
			return Record{}, err
		}
	}
}

// skipLine discards the rest of an overlong line.
func (rr *RecordReader) skipLine(err error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = rr.r.ReadSlice('\n')
	}
}

// RecordWriter writes records, splitting payloads into chunks of at most
// MaxChunk bytes. It is what the guest agent uses.
type RecordWriter struct {
	w   io.Writer
	buf []byte
}

// NewRecordWriter returns a writer of records to w.
func NewRecordWriter(w io.Writer) *RecordWriter {
	return &RecordWriter{w: w}
}

// Write sends r, split into several records of the same kind and step when
// its payload is larger than MaxChunk. An empty payload is sent as one record.
func (rw *RecordWriter) Write(r Record) error {
	data := r.Data
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), MaxChunk)
		rw.buf = AppendRecord(rw.buf[:0], Record{Kind: r.Kind, Step: r.Step, Data: data[:n]})
		if _, err := rw.w.Write(rw.buf); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}
