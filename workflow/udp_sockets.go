package workflow

import (
	"context"
	"sync"
	"time"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// UDPSocketReader is a side whose process sockets are read from here,
// reading by reading (runbook.Local is one); UDPCountersReader one that
// reads the Udp counters of a process's namespace with them.
type (
	UDPSocketReader   = runbook.UDPSocketReader
	UDPCountersReader = runbook.UDPCountersReader
)

// UDPSocketWatcher is a side that watches a process's sockets itself and
// answers once they closed (runbook.Peer: its agent reads them on the far
// host, as often as a local side is read, in one call).
type UDPSocketWatcher interface {
	WatchUDPSockets(ctx context.Context, a runbook.UDPWatchAsk) (runbook.UDPWatch, error)
}

// SocketReading is netserver's own UDP data socket during one run, as
// /proc/PID/net/udp shows it (prometheus/procfs NetUDP): the per-socket
// view of a receive buffer overflow, beside Udp RcvbufErrors.
type SocketReading struct {
	// Sockets is how many UDP sockets of netserver were seen (one: the
	// test's data socket).
	Sockets int `json:"sockets"`
	// Drops is the datagrams they dropped, at the last reading before they
	// closed (read every SampleEvery during the run: drops in the last
	// interval before the socket closed can be missed).
	Drops uint64 `json:"drops"`
	// RxQueueMaxBytes is the most that waited in a receive queue at any
	// reading: near the buffer size, the reader was the bottleneck.
	RxQueueMaxBytes uint64 `json:"rx_queue_max_bytes"`
	// RcvbufErrors is the namespace's Udp RcvbufErrors growth from the
	// run's start to the last reading of the socket (the same span as
	// Drops); CountersRead is false when they could not be read with it.
	RcvbufErrors uint64 `json:"rcvbuf_errors"`
	CountersRead bool   `json:"counters_read"`
	// Samples is how many readings were taken; Errors the last failure.
	Samples int    `json:"samples"`
	Error   string `json:"error,omitempty"`
}

// SampleEvery is how often netserver's socket is read during a run from
// this host; FarSampleEvery how often a far side's agent reads it. A
// reading costs its host 0.42 ms of CPU on this machine's kernel
// (runbook's BenchmarkUDPWatchRead: /proc reads and fd links, nearly all
// kernel time), so 100 ms keeps it to 0.4 % of one core where the tool
// runs beside it (at 20 ms it was 2 %); the far one is slower because
// its agent runs on the receiver it measures, in the lab's TCG guests
// far slower (at 20 ms 82 % of a core, 2026-12-02). Drops in the last
// interval before the socket closed can be missed; RcvbufErrors over the
// same span holds them.
const (
	SampleEvery    = 100 * time.Millisecond
	FarSampleEvery = 250 * time.Millisecond
)

// socketWatch is a watch of netserver's sockets during one run: read
// from here every SampleEvery, or by the far side itself.
type socketWatch struct {
	stopRead context.CancelFunc
	ready    chan struct{} // closed at the watch's first reading
	done     chan struct{}
	result   runbook.UDPWatch
	err      error
}

// canWatch says whether a side's sockets can be watched.
func canWatch(s runbook.Side) bool {
	switch s.(type) {
	case UDPSocketReader, UDPSocketWatcher:
		return true
	}
	return false
}

// watchSockets starts the watch of pid's sockets on side (canWatch).
func watchSockets(ctx context.Context, side runbook.Side, pid int) *socketWatch {
	w := &socketWatch{ready: make(chan struct{}), done: make(chan struct{})}
	rctx, cancel := context.WithCancel(ctx)
	w.stopRead = cancel
	var once sync.Once
	ready := func() { once.Do(func() { close(w.ready) }) }
	if r, ok := side.(UDPSocketReader); ok {
		go func() {
			defer close(w.done)
			rw := runbook.NewUDPWatcher(r)
			tick := time.NewTicker(SampleEvery)
			defer tick.Stop()
			for {
				rw.Read(rctx, pid)
				ready()
				select {
				case <-rctx.Done():
					// A last reading: a socket still open has its newest count.
					rw.Read(context.WithoutCancel(ctx), pid)
					w.result = rw.Result()
					return
				case <-tick.C:
				}
			}
		}()
		return w
	}
	go func() {
		defer close(w.done)
		w.result, w.err = side.(UDPSocketWatcher).WatchUDPSockets(rctx, runbook.UDPWatchAsk{PID: pid, Every: FarSampleEvery, Ready: ready})
	}()
	return w
}

// end stops a watch whose run did not happen and waits for it; nil is
// none.
func (w *socketWatch) end() {
	if w == nil {
		return
	}
	w.stopRead()
	<-w.done
}

// waitReady returns once the watch took its first reading, ended (it
// failed: stop says why), or ctx ended. A far watch is an agent started
// on the host it measures: waiting keeps its start-up (a fresh process;
// 2.35 s of CPU in the lab's TCG guests) out of the run.
func (w *socketWatch) waitReady(ctx context.Context) {
	select {
	case <-w.ready:
	case <-w.done:
	case <-ctx.Done():
	}
}

// watchGrace is how long stop waits for a far watch to see the sockets
// close after the test's end before it ends the watch.
var watchGrace = 10 * time.Second

// stop ends the watch (a far one once its sockets closed, or after
// watchGrace) and sums the sockets seen; before is the namespace's Udp
// counters at the run's start.
func (w *socketWatch) stop(before nic.UDPCounters, local bool) *SocketReading {
	if local {
		w.stopRead()
	} else {
		select {
		case <-w.done:
		case <-time.After(watchGrace):
			w.stopRead()
		}
	}
	<-w.done
	w.stopRead()
	r := &SocketReading{Sockets: len(w.result.Last), RxQueueMaxBytes: w.result.RxQueueMaxBytes, Samples: w.result.Samples, Error: w.result.Error}
	for _, s := range w.result.Last {
		r.Drops += s.Drops
	}
	if w.result.Counters != nil {
		r.RcvbufErrors, r.CountersRead = w.result.Counters.Sub(before).RcvbufErrors, true
	}
	if w.err != nil {
		r.Error = w.err.Error()
	}
	return r
}

// udpAddSocket stores one run's socket reading with the round, beside
// udp_rcvbuf_errors: netserver_socket_drops, netserver_socket_rcvbuf_errors
// (RcvbufErrors over the same span) and netserver_socket_rxq_max.
func udpAddSocket(round *report.Round, s *SocketReading) error {
	if s == nil {
		return nil
	}
	if err := round.AddValue(report.MetricSocketDrops, nil, "count", report.LowerIsBetter, float64(s.Drops)); err != nil {
		return err
	}
	if s.CountersRead {
		if err := round.AddValue(report.MetricSocketSpanRcvbufErrors, nil, "count", report.LowerIsBetter, float64(s.RcvbufErrors)); err != nil {
			return err
		}
	}
	return round.AddValue("netserver_socket_rxq_max", nil, report.UnitBytes, report.LowerIsBetter, float64(s.RxQueueMaxBytes))
}
