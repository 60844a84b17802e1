package perftest

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The stream delivers each row as soon as its line is complete, before the
// writer has written the next one.
func TestStreamDeliversRowsAsTheyArrive(t *testing.T) {
	text := string(readTestdata(t, "run-infinitely.txt"))
	head, rows, _ := strings.Cut(text, " 65536 ")
	rows = " 65536 " + rows
	lines := strings.SplitAfter(rows, "\n")

	pr, pw := io.Pipe()
	step := make(chan struct{})
	go func() {
		pw.Write([]byte(head))
		for _, l := range lines {
			pw.Write([]byte(l))
			if strings.HasPrefix(l, " 65536") {
				<-step // wait until the reader has seen the row
			}
		}
		pw.Close()
	}()
	s := NewStream(pr)
	var got []float64
	for row, err := range s.Rows() {
		if err != nil {
			t.Fatalf("err = %v", err)
		}
		bw, ok := row.(BWRow)
		if !ok {
			t.Fatalf("row %T, want BWRow", row)
		}
		got = append(got, bw.BWAvgGbps)
		if s.Result().Header.Device != "rxe0" {
			t.Errorf("header not parsed before the first row")
		}
		select {
		case step <- struct{}{}:
		case <-time.After(5 * time.Second):
			t.Fatal("writer stuck")
		}
	}
	if len(got) != 3 || got[0] != 0.11 || got[2] != 0.031457 {
		t.Errorf("rows = %v", got)
	}
	res := s.Result()
	if len(res.BW) != 0 || res.Test != "RDMA_Write BW Test" || !res.HasWarning(WarnToolMessage) {
		t.Errorf("result = %+v", res)
	}
	for range s.Rows() {
		break
	}
}

func TestStreamErrors(t *testing.T) {
	in := string(readTestdata(t, "v26-write-lat-client.txt"))
	in = strings.Replace(in, " 2       100000 ", " 2  x  100000 ", 1) + " 4 100000 1 2 3 4 5 6 7\n" + "Failed to modify QP 0 to RTR\n"
	var rows int
	var errs []error
	for row, err := range NewStream(strings.NewReader(in)).Rows() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, ok := row.(LatRow); !ok {
			t.Errorf("row %T", row)
		}
		rows++
	}
	var pe *ParseError
	var e *Error
	if rows != 1 || len(errs) != 2 || !errors.As(errs[0], &pe) || pe.Line != 20 || !errors.As(errs[1], &e) || e.Kind != KindQPTransition {
		t.Errorf("rows %d, errs %v", rows, errs)
	}
	// Breaking out of the loop stops the stream.
	n := 0
	for range NewStream(strings.NewReader(string(readTestdata(t, "run-infinitely.txt")))).Rows() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("n = %d", n)
	}
	// A table header without rows is truncated.
	var last error
	for _, err := range NewStream(strings.NewReader(" Send BW Test\n #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n")).Rows() {
		last = err
	}
	if !errors.Is(last, ErrTruncated) {
		t.Errorf("last = %v", last)
	}
}
