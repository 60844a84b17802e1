//go:build lab

package perftest_test

import (
	"sync"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/perftest"
)

// TestLabRunSoak runs --run_infinitely -D 1 send and write pairs on rxe
// loopback for 6 s each: the rows arrive while the pair runs, SIGINT
// stops both sides, and nothing of the pair is left.
func TestLabRunSoak(t *testing.T) {
	labtest.Guest(t)
	ctx := labRXE(t)
	r := host.Local{}
	for i, tt := range []perftest.Test{perftest.SendBW, perftest.WriteBW} {
		t.Run(tt.String(), func(t *testing.T) {
			port := 18730 + i
			o := perftest.Options{Test: tt, Server: labEnd(t), Client: labEnd(t), NoFreqCheck: true, Port: port,
				ReportGbits: true, Duration: time.Second}
			var mu sync.Mutex
			var firstRow time.Time
			start := time.Now()
			sr, err := perftest.RunSoak(ctx, r, r, labAddr, o, 6*time.Second, func(role perftest.Role, in perftest.Interim) {
				mu.Lock()
				if role == perftest.Client && firstRow.IsZero() {
					firstRow = time.Now()
				}
				mu.Unlock()
			})
			if sr != nil && sr.PairResult != nil {
				t.Logf("client %s, %d rows:\n%s%s", sr.Client.Outcome(), len(sr.ClientInterims), sr.Client.Stdout, sr.Client.Stderr)
				t.Logf("server %s, %d rows:\n%s%s", sr.Server.Outcome(), len(sr.ServerInterims), sr.Server.Stdout, sr.Server.Stderr)
				t.Logf("after the stop: %v", sr.AfterStop)
			}
			if err != nil {
				t.Fatalf("RunSoak: %v", err)
			}
			if sr.AfterStop != nil && sr.AfterStop.Kind != perftest.KindHandshake {
				t.Errorf("after the stop: %v; want nothing or 4.5's handshake complaint", sr.AfterStop)
			}
			if !sr.Stopped || len(sr.ClientInterims) == 0 {
				t.Fatalf("stopped %v with %d client rows; want stopped after some rows", sr.Stopped, len(sr.ClientInterims))
			}
			for i, in := range sr.ClientInterims {
				if in.End < time.Second || i > 0 && in.End <= sr.ClientInterims[i-1].End || in.Row.PeakMeasured || in.Row.Bytes != 65536 {
					t.Errorf("row %d at %v: %+v", i, in.End, in.Row)
				}
			}
			// The rows streamed: the first came well before the client ended.
			if end := start.Add(sr.Client.Elapsed); firstRow.IsZero() || firstRow.After(end.Add(-500*time.Millisecond)) {
				t.Errorf("first client row at %v, the client ended at %v: not streamed", firstRow.Sub(start), sr.Client.Elapsed)
			}
			if last := sr.ClientInterims[len(sr.ClientInterims)-1].End; last > 6*time.Second+3*time.Second {
				t.Errorf("last row at %v: the stop came late", last)
			}
			if l := leftover(t, port); len(l) > 0 {
				t.Errorf("left running: %q", l)
			}
		})
	}
}
