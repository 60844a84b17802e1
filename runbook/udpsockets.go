package runbook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/nic"
)

// UDPSockets returns the UDP sockets of process pid and of its children
// (/proc/PID/task/PID/children: netserver forks one per test, which holds
// the data socket), each read in the process's own network namespace
// (nic.Root.UDPSockets).
//
// Similar to: ss -u -a -n -p -e | grep netserver
func (l *Local) UDPSockets(_ context.Context, pid int) ([]nic.UDPSocket, error) {
	tree, err := l.udpSocketTree(pid)
	return flatSockets(tree), err
}

// heldSockets are the UDP sockets one process of a watched tree holds.
type heldSockets struct {
	pid   int
	socks []nic.UDPSocket
}

// udpSocketTree reads the sockets of pid and of its children, by the
// process that holds them.
func (l *Local) udpSocketTree(pid int) ([]heldSockets, error) {
	proc := l.Root.ProcDir()
	root := nic.Root(l.Root)
	pids := []int{pid}
	p := strconv.Itoa(pid)
	if b, err := os.ReadFile(filepath.Join(proc, p, "task", p, "children")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				pids = append(pids, c)
			}
		}
	}
	var out []heldSockets
	var firstErr error
	for _, id := range pids {
		s, err := root.UDPSockets(id)
		if err != nil {
			if id == pid && firstErr == nil {
				firstErr = err
			}
			continue // a child that ended meanwhile
		}
		if len(s) > 0 {
			out = append(out, heldSockets{id, s})
		}
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// udpSocketsAgain reads sockets found before by their inodes in their
// holders' tables alone (nic.Root.UDPSocketsIn), without the tree's
// children and open files; a holder that ended is left out.
func (l *Local) udpSocketsAgain(held []heldSockets) []heldSockets {
	var out []heldSockets
	for _, h := range held {
		inodes := make([]uint64, len(h.socks))
		for i, s := range h.socks {
			inodes[i] = s.Inode
		}
		if s, err := nic.Root(l.Root).UDPSocketsIn(h.pid, inodes); err == nil && len(s) > 0 {
			out = append(out, heldSockets{h.pid, s})
		}
	}
	return out
}

// flatSockets lists a tree's sockets.
func flatSockets(tree []heldSockets) []nic.UDPSocket {
	var out []nic.UDPSocket
	for _, h := range tree {
		out = append(out, h.socks...)
	}
	return out
}

// UDPCounters reads the Udp counters of pid's network namespace
// (/proc/PID/net/snmp), at the moment of a socket reading.
//
// Similar to: nsenter -t PID -n nstat -az Udp*
func (l *Local) UDPCounters(_ context.Context, pid int) (nic.UDPCounters, error) {
	f, err := os.Open(filepath.Join(l.Root.ProcDir(), strconv.Itoa(pid), "net", "snmp"))
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

// UDPWatchAsk is what WatchUDPSockets watches: a process (netserver),
// how often, and for how long at most.
type UDPWatchAsk struct {
	PID int `json:"pid"`
	// Every is the interval between readings; 0 means 20 ms.
	Every time.Duration `json:"every_ns,omitempty"`
	// Max ends the watch; 0 means 2 minutes (on a Peer, at most 30 s less
	// than DefaultPeerSlowCallTimeout, so that the watch replies in time).
	Max time.Duration `json:"max_ns,omitempty"`
	// Ready, when set, is called once, after the first reading: the
	// watch is running (on a Peer, when the agent has said so), so a
	// caller that starts the tool then keeps the agent's start-up, a
	// fresh process, out of the run it measures.
	Ready func() `json:"-"`
}

// UDPWatch is what a watch of a process's UDP sockets saw.
type UDPWatch struct {
	// Last is each socket seen (by inode) at its last reading: its drops
	// then, its queue then.
	Last []nic.UDPSocket `json:"last,omitempty"`
	// RxQueueMaxBytes is the most that waited in a receive queue at any
	// reading.
	RxQueueMaxBytes uint64 `json:"rx_queue_max_bytes"`
	// Counters are the namespace's Udp counters at the last reading that
	// saw a socket; nil when none did or they could not be read.
	Counters *nic.UDPCounters `json:"counters,omitempty"`
	Samples  int              `json:"samples"`
	// Closed says the sockets were seen and then gone: the test ended.
	Closed bool `json:"closed,omitempty"`
	// Error is the last reading's failure.
	Error string `json:"error,omitempty"`
	// CPU is the watching process's own CPU time from its first reading
	// to its last (getrusage RUSAGE_SELF): on a far host, what the agent
	// cost the host it measured while the tool ran; in a process that
	// does more than watch, all of its goroutines'.
	CPU time.Duration `json:"cpu_ns,omitempty"`
}

// WatchUDPSockets reads pid's UDP sockets (and its children's) every
// a.Every until they have been seen and are gone (netserver's test child
// closed its data socket), a.Max has passed, or ctx ends, and returns what
// it saw: the agent of a far host runs it there, so that the readings are
// as frequent as a local side's and cost one call.
func (l *Local) WatchUDPSockets(ctx context.Context, a UDPWatchAsk) (UDPWatch, error) {
	if a.PID <= 0 {
		return UDPWatch{}, fmt.Errorf("runbook: watch UDP sockets: pid %d is not a process id", a.PID)
	}
	every, limit := a.Every, a.Max
	if every <= 0 {
		every = 20 * time.Millisecond
	}
	if limit <= 0 {
		limit = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	w := NewUDPWatcher(l)
	tick := time.NewTicker(every)
	defer tick.Stop()
	var cpu0 time.Duration
	result := func() UDPWatch {
		r := w.Result()
		r.CPU = selfCPU() - cpu0
		return r
	}
	for first := true; ; first = false {
		if first {
			cpu0 = selfCPU()
		}
		n := w.Read(ctx, a.PID)
		if first && a.Ready != nil {
			a.Ready()
		}
		if n == 0 && w.seen {
			w.w.Closed = true
			return result(), nil
		}
		select {
		case <-ctx.Done():
			return result(), nil
		case <-tick.C:
		}
	}
}

// UDPSocketReader reads a process's UDP sockets; UDPCountersReader its
// namespace's Udp counters. Local is both.
type (
	UDPSocketReader interface {
		UDPSockets(ctx context.Context, pid int) ([]nic.UDPSocket, error)
	}
	UDPCountersReader interface {
		UDPCounters(ctx context.Context, pid int) (nic.UDPCounters, error)
	}
)

// UDPWatcher sums readings of a process's UDP sockets: what a watch
// keeps between them. It is not safe for concurrent use.
type UDPWatcher struct {
	r    UDPSocketReader
	last map[uint64]nic.UDPSocket
	seen bool
	held []heldSockets // a Local's sockets of the latest reading, by holder
	w    UDPWatch
}

// NewUDPWatcher starts a watch that reads through r (and its Udp
// counters, when r is a UDPCountersReader too).
func NewUDPWatcher(r UDPSocketReader) *UDPWatcher {
	return &UDPWatcher{r: r, last: map[uint64]nic.UDPSocket{}}
}

// Read takes one reading of pid's sockets and returns how many it saw.
func (w *UDPWatcher) Read(ctx context.Context, pid int) int {
	socks, err := w.read(ctx, pid)
	w.w.Samples++
	if err != nil {
		w.w.Error = err.Error()
		return 0
	}
	for _, s := range socks {
		w.last[s.Inode] = s
		w.w.RxQueueMaxBytes = max(w.w.RxQueueMaxBytes, s.RxQueueBytes)
	}
	if c, ok := w.r.(UDPCountersReader); ok && len(socks) > 0 {
		if u, err := c.UDPCounters(ctx, pid); err == nil {
			w.w.Counters = &u
		} else {
			w.w.Error = err.Error()
		}
	}
	w.seen = w.seen || len(socks) > 0
	return len(socks)
}

// read takes one reading. A Local's sockets, once found, are read again
// by inode in their holder's table alone while any of them stays: a
// third of the system calls of a reading of the whole tree, which is
// taken again when they are all gone (to tell closed sockets from a new
// child's).
func (w *UDPWatcher) read(ctx context.Context, pid int) ([]nic.UDPSocket, error) {
	l, ok := w.r.(*Local)
	if !ok {
		return w.r.UDPSockets(ctx, pid)
	}
	if again := l.udpSocketsAgain(w.held); len(again) > 0 {
		w.held = again
		return flatSockets(again), nil
	}
	tree, err := l.udpSocketTree(pid)
	w.held = tree
	return flatSockets(tree), err
}

// Result is what the readings so far saw.
func (w *UDPWatcher) Result() UDPWatch {
	out := w.w
	out.Last = make([]nic.UDPSocket, 0, len(w.last))
	for _, s := range w.last {
		out.Last = append(out.Last, s)
	}
	return out
}

// WatchUDPSockets runs Local.WatchUDPSockets on the peer, in one call
// that lasts as long as the watch; a.Ready is called when the agent's
// progress line says its first reading is taken.
func (p *Peer) WatchUDPSockets(ctx context.Context, a UDPWatchAsk) (UDPWatch, error) {
	if bound := DefaultPeerSlowCallTimeout - 30*time.Second; a.Max <= 0 || a.Max > bound {
		a.Max = bound // the watch ends and replies before the call's bound
	}
	var w UDPWatch
	err := p.callSeeing(ctx, "watch-udp-sockets", a, &w, onceReady(a.Ready))
	return w, noOperation(err)
}
