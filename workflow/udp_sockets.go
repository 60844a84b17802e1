package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// UDPSocketReader is a side that can read the UDP sockets of one of its
// processes and of that process's children (netserver forks one per
// test, which holds the data socket), in the process's own network
// namespace. runbook.Local is read through nic.Root.UDPSockets; another
// side implements it or is not read.
type UDPSocketReader interface {
	UDPSockets(ctx context.Context, pid int) ([]nic.UDPSocket, error)
}

// UDPCountersReader is a side that can read the Udp counters of a
// process's network namespace (/proc/PID/net/snmp), at the same moment as
// its sockets, so that a socket's drops are held against RcvbufErrors
// over the same span: netserver stops reading at the test's end and
// everything that still arrives is dropped until the socket closes,
// after the last reading.
type UDPCountersReader interface {
	UDPCounters(ctx context.Context, pid int) (nic.UDPCounters, error)
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

// SampleEvery is how often netserver's socket is read during a run.
const SampleEvery = 20 * time.Millisecond

// socketReaderOf is how a side's sockets are read, nil when they cannot
// be from here.
func socketReaderOf(s runbook.Side) UDPSocketReader {
	switch v := s.(type) {
	case UDPSocketReader:
		return v
	case *runbook.Local:
		return localSockets{proc: v.Root.ProcDir(), root: nic.Root(v.Root)}
	}
	return nil
}

// localSockets reads a process of this host and its children.
type localSockets struct {
	proc string // /proc's stand-in, "" for /proc
	root nic.Root
}

// UDPCounters reads the Udp counters of pid's namespace.
func (l localSockets) UDPCounters(_ context.Context, pid int) (nic.UDPCounters, error) {
	proc := l.proc
	if proc == "" {
		proc = "/proc"
	}
	f, err := os.Open(filepath.Join(proc, strconv.Itoa(pid), "net", "snmp"))
	if err != nil {
		return nic.UDPCounters{}, err
	}
	defer f.Close()
	s, err := nic.ParseSNMP(f)
	if err != nil {
		return nic.UDPCounters{}, err
	}
	return s.UDP()
}

// UDPSockets reads pid's sockets and those of its children
// (/proc/PID/task/PID/children).
func (l localSockets) UDPSockets(ctx context.Context, pid int) ([]nic.UDPSocket, error) {
	proc := l.proc
	if proc == "" {
		proc = "/proc"
	}
	pids := []int{pid}
	p := strconv.Itoa(pid)
	if b, err := os.ReadFile(filepath.Join(proc, p, "task", p, "children")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				pids = append(pids, c)
			}
		}
	}
	var out []nic.UDPSocket
	var firstErr error
	for _, id := range pids {
		s, err := l.root.UDPSockets(id)
		if err != nil {
			if id == pid && firstErr == nil {
				firstErr = err
			}
			continue // a child that ended meanwhile
		}
		out = append(out, s...)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// socketWatch reads netserver's sockets until stopped.
type socketWatch struct {
	ctx    context.Context
	r      UDPSocketReader
	pid    int
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	last   map[uint64]nic.UDPSocket
	rxMax  uint64
	n      int
	err    error
	udp    *nic.UDPCounters // at the last reading that saw a socket
}

// watchSockets starts reading pid's sockets every SampleEvery.
func watchSockets(ctx context.Context, r UDPSocketReader, pid int) *socketWatch {
	w := &socketWatch{ctx: context.WithoutCancel(ctx), r: r, pid: pid, done: make(chan struct{}), last: map[uint64]nic.UDPSocket{}}
	ctx, w.cancel = context.WithCancel(ctx)
	go func() {
		defer close(w.done)
		tick := time.NewTicker(SampleEvery)
		defer tick.Stop()
		for {
			w.read(ctx, r, pid)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// read takes one reading.
func (w *socketWatch) read(ctx context.Context, r UDPSocketReader, pid int) {
	socks, err := r.UDPSockets(ctx, pid)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	if err != nil {
		w.err = err
		return
	}
	for _, s := range socks {
		w.last[s.Inode] = s
		w.rxMax = max(w.rxMax, s.RxQueueBytes)
	}
	if c, ok := r.(UDPCountersReader); ok && len(socks) > 0 {
		if u, err := c.UDPCounters(ctx, pid); err == nil {
			w.udp = &u
		} else {
			w.err = err
		}
	}
}

// stop ends the readings with a last one (a socket still open has its
// newest count) and sums the sockets seen; before is the namespace's Udp
// counters at the run's start.
func (w *socketWatch) stop(before nic.UDPCounters) *SocketReading {
	w.cancel()
	<-w.done
	w.read(w.ctx, w.r, w.pid)
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &SocketReading{Sockets: len(w.last), RxQueueMaxBytes: w.rxMax, Samples: w.n}
	for _, s := range w.last {
		r.Drops += s.Drops
	}
	if w.udp != nil {
		r.RcvbufErrors, r.CountersRead = w.udp.Sub(before).RcvbufErrors, true
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
