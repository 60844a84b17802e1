package lab

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecordRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), MaxChunk/8) // two chunks
	in := []Record{
		{Kind: KindHello, Step: -1, Data: []byte(`{"kernel":"6.1.0"}`)},
		{Kind: KindStart, Step: 0, Data: []byte(`{"name":"a"}`)},
		{Kind: KindStdout, Step: 0, Data: []byte("line\r\nLAB1 exit 0 e30=\n\x00\xff")},
		{Kind: KindStderr, Step: 0, Data: big},
		{Kind: KindExit, Step: 0, Data: []byte(`{"code":3}`)},
		{Kind: KindDone, Step: -1},
	}
	var buf bytes.Buffer
	w := NewRecordWriter(&buf)
	for _, r := range in {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	r := NewRecordReader(&buf)
	var got []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	// The big payload arrives as two records of the same kind and step.
	if len(got) != len(in)+1 {
		t.Fatalf("got %d records, want %d", len(got), len(in)+1)
	}
	joined := append(append([]byte(nil), got[3].Data...), got[4].Data...)
	if got[3].Kind != KindStderr || got[4].Kind != KindStderr || !bytes.Equal(joined, big) {
		t.Errorf("chunked payload not reassembled: %d+%d bytes", len(got[3].Data), len(got[4].Data))
	}
	want := append(append([]Record(nil), in[:3]...), in[4:]...)
	gotRest := append(append([]Record(nil), got[:3]...), got[5:]...)
	if d := cmp.Diff(want, gotRest); d != "" {
		t.Errorf("records differ (-want +got):\n%s", d)
	}
}

func TestRecordReaderErrors(t *testing.T) {
	stream := strings.Join([]string{
		"LAB1 stdout 0 aGk=",          // ok
		"kernel: random console line", // not a record
		"LAB1 bogus 0 aGk=",           // unknown kind
		"LAB1 stdout x aGk=",          // bad step
		"LAB1 stdout 0 !!!",           // bad base64
		"LAB1 exit 0 e30=\r",          // ok, CRLF tolerated
		"LAB1 done -1 ",               // ok, empty payload
		"LAB1 stdout 0 aG",            // torn last line, no newline
	}, "\n")
	r := NewRecordReader(strings.NewReader(stream))
	var kinds []string
	var errLines []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errLines = append(errLines, err.Error())
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v does not wrap ErrProtocol", err)
			}
			continue
		}
		kinds = append(kinds, string(rec.Kind))
	}
	if d := cmp.Diff([]string{"stdout", "exit", "done"}, kinds); d != "" {
		t.Errorf("kinds (-want +got):\n%s", d)
	}
	if len(errLines) != 5 {
		t.Fatalf("got %d errors, want 5: %q", len(errLines), errLines)
	}
	for i, want := range []string{"line 2:", "line 3:", "line 4:", "line 5:", "line 8:"} {
		if !strings.HasPrefix(errLines[i], want) {
			t.Errorf("error %d = %q, want prefix %q", i, errLines[i], want)
		}
	}
}

func TestRecordReaderOverlongLine(t *testing.T) {
	long := "LAB1 stdout 0 " + strings.Repeat("A", maxRecordLine+10) + "\nLAB1 done -1 \n"
	r := NewRecordReader(strings.NewReader(long))
	if _, err := r.Next(); !errors.Is(err, ErrProtocol) {
		t.Fatalf("overlong line: err = %v, want ErrProtocol", err)
	}
	rec, err := r.Next()
	if err != nil || rec.Kind != KindDone {
		t.Fatalf("after overlong line: %v %v, want the done record", rec, err)
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte("LAB1 stdout 0 aGk=\n"))
	f.Add([]byte("LAB1 done -1 "))
	f.Add([]byte("LAB1 exit 99999999999999999999 e30="))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := ParseRecord(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v does not wrap ErrProtocol", err)
			}
			return
		}
		// A parsed record encodes back to a line that parses the same.
		again, err := ParseRecord(AppendRecord(nil, rec))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if d := cmp.Diff(rec, again); d != "" {
			t.Fatalf("round trip (-first +second):\n%s", d)
		}
	})
}
