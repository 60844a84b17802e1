//go:build lab

package runbook

import (
	"context"
	"testing"
	"time"
)

// TestLabWatchCost measures what a watch of netserver's socket costs the
// host it runs on, in a guest with nothing else to do: the CPU of one
// reading taken back to back, and of a watch at the far side's interval
// over a few seconds. The demo's far share, read under a UDP flood, is
// held against it.
func TestLabWatchCost(t *testing.T) {
	pid, end := udpOverflow(t)
	defer end()
	ctx := context.Background()
	w := NewUDPWatcher(&Local{})
	const n = 200
	cpu0 := selfCPU()
	for range n {
		if w.Read(ctx, pid) != 2 {
			t.Fatalf("a reading saw no sockets: %+v", w.Result())
		}
	}
	perRead := (selfCPU() - cpu0) / n
	every := 250 * time.Millisecond
	res, err := (&Local{}).WatchUDPSockets(ctx, UDPWatchAsk{PID: pid, Every: every, Max: 5 * time.Second})
	if err != nil || res.Samples < 10 || res.CPU <= 0 {
		t.Fatalf("watch: %+v, %v; want readings and their CPU", res, err)
	}
	t.Logf("one reading: %v of CPU (%.2f %% of a core at %v); a %v watch: %d readings, %v of CPU (%.2f %% of a core)",
		perRead, 100*float64(perRead)/float64(every), every, 5*time.Second, res.Samples, res.CPU, 100*float64(res.CPU)/float64(5*time.Second))
}
