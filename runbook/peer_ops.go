package runbook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rocekit/rocekit/tune"
)

// PeerOperation is one operation of the rocekit-peer agent as its usage
// text shows it.
type PeerOperation struct {
	Name string // "set-mtu"
	// Example is a JSON argument, as typed in a shell; "" when the
	// operation takes none.
	Example string
	// Doc says what it does, after the example; "" for one that runs
	// Local's method of that name.
	Doc string
}

// peerOp is an operation of the agent: its usage line, how long the near
// side waits for it, and how the agent serves it. The Peer methods, the
// agent (ServePeer) and its usage text all read this table, so an
// operation is one entry (and the Peer method that calls it).
type peerOp struct {
	PeerOperation
	slow bool // bounded by DefaultPeerSlowCallTimeout
	// folder: it works on the journal folder itself (restore), without
	// a Local and a journal of its own.
	folder bool
	serve  func(ctx context.Context, s peerServe, arg string) (any, error)
}

// peerServe is what an operation gets on the agent.
type peerServe struct {
	op, dir string
	l       *Local // journaled in a new file of dir; nil for a folder operation
	// ready writes the progress line that says a lasting operation is
	// under way (peerReply.Ready), before its reply.
	ready func()
}

// decode reads the operation's JSON argument into v.
func (s peerServe) decode(arg string, v any) error {
	if err := json.Unmarshal([]byte(arg), v); err != nil {
		return fmt.Errorf("%w: %s argument %q: %v", tune.ErrInvalidInput, s.op, arg, err)
	}
	return nil
}

// withArg serves an operation that takes a JSON argument of type A.
func withArg[A, R any](f func(*Local, context.Context, A) (R, error)) func(context.Context, peerServe, string) (any, error) {
	return func(ctx context.Context, s peerServe, arg string) (any, error) {
		var a A
		if err := s.decode(arg, &a); err != nil {
			return nil, err
		}
		return f(s.l, ctx, a)
	}
}

// noArg serves an operation that takes none (its argument is ignored).
func noArg[R any](f func(*Local, context.Context) (R, error)) func(context.Context, peerServe, string) (any, error) {
	return func(ctx context.Context, s peerServe, _ string) (any, error) { return f(s.l, ctx) }
}

// peerOps are the agent's operations, in the order of its usage text.
var peerOps = []peerOp{
	{PeerOperation: PeerOperation{Name: "prepare-rxe", Example: `{"netdev":"eth0","name":"rxe0","mtu":9000}`}, slow: true,
		serve: withArg((*Local).PrepareRXE)},
	{PeerOperation: PeerOperation{Name: "set-mtu", Example: `{"netdev":"eth0","mtu":1500}`},
		serve: withArg(func(l *Local, ctx context.Context, m mtuArg) (struct{}, error) {
			return struct{}{}, l.SetMTU(ctx, m.Netdev, m.MTU)
		})},
	{PeerOperation: PeerOperation{Name: "netdev", Example: `"eth0"`}, serve: withArg((*Local).Netdev)},
	{PeerOperation: PeerOperation{Name: "counters", Example: `"eth0"`}, serve: withArg((*Local).Counters)},
	{PeerOperation: PeerOperation{Name: "port-counters", Example: `"rxe0"`}, serve: withArg((*Local).PortCounters)},
	{PeerOperation: PeerOperation{Name: "spread-irqs", Example: `"eth0"`}, serve: withArg((*Local).SpreadIRQs)},
	{PeerOperation: PeerOperation{Name: "set-governor", Example: `"performance"`}, serve: withArg((*Local).SetGovernor)},
	{PeerOperation: PeerOperation{Name: "set-sysctl", Example: `{"key":"net.core.rmem_max","value":"4194304"}`},
		serve: withArg(func(l *Local, ctx context.Context, a sysctlArg) (struct{}, error) {
			return struct{}{}, l.SetSysctl(ctx, a.Key, a.Value)
		})},
	{PeerOperation: PeerOperation{Name: "set-txqueuelen", Example: `{"netdev":"eth0","txqueuelen":10000}`},
		serve: withArg(func(l *Local, ctx context.Context, a txQueueLenArg) (struct{}, error) {
			return struct{}{}, l.SetTxQueueLen(ctx, a.Netdev, a.Packets)
		})},
	{PeerOperation: PeerOperation{Name: "probe-reach", Example: `{"to":"near","addr":"198.18.0.1","mtu":9000}`, Doc: "don't-fragment echoes of mtu bytes, searching down when they fail"}, slow: true,
		serve: withArg((*Local).ProbeReach)},
	{PeerOperation: PeerOperation{Name: "pause-irqbalance"}, serve: noArg((*Local).PauseIRQBalance)},
	{PeerOperation: PeerOperation{Name: "verify", Doc: "reads back every change of -journal-dir's journals (tune drift)"}, slow: true, folder: true,
		serve: func(ctx context.Context, s peerServe, _ string) (any, error) {
			d, err := VerifyDir(ctx, s.dir)
			return driftsWire(d), err
		}},
	{PeerOperation: PeerOperation{Name: "watch-udp-sockets", Example: `{"pid":4242,"every_ns":20000000}`, Doc: "reads the process's UDP sockets until they close (at most 2 min)"}, slow: true,
		serve: func(ctx context.Context, s peerServe, arg string) (any, error) {
			var a UDPWatchAsk
			if err := s.decode(arg, &a); err != nil {
				return nil, err
			}
			a.Ready = s.ready
			return s.l.WatchUDPSockets(ctx, a)
		}},
	{PeerOperation: PeerOperation{Name: "host"}, serve: noArg((*Local).Host)},
	{PeerOperation: PeerOperation{Name: "kernel-log"}, serve: noArg((*Local).KernelLog)},
	{PeerOperation: PeerOperation{Name: "exec", Example: `{"argv":["netserver","-D"]}`, Doc: "journaled, then exec'd in place: restore ends it"},
		serve: withArg(func(l *Local, _ context.Context, a execArg) (any, error) { return nil, l.execTracked(a.Argv) })}, // returns only if it failed
	{PeerOperation: PeerOperation{Name: "restore", Doc: "undoes every journal of -journal-dir, newest first"}, slow: true, folder: true,
		serve: func(ctx context.Context, s peerServe, arg string) (any, error) {
			// "if-any" (what Peer.Restore sends): a folder that does not
			// exist held no journal. Without it, as typed by a person, a
			// missing folder is an error: a mistyped -journal-dir.
			return struct{}{}, RestoreDir(ctx, s.dir, arg == `"if-any"`)
		}},
	{PeerOperation: PeerOperation{Name: "restore-since", Example: `{"since":"2026-12-01T20:00:00Z"}`, Doc: "the calls made since then, newest first"}, slow: true, folder: true,
		serve: func(ctx context.Context, s peerServe, arg string) (any, error) {
			return struct{}{}, restoreSinceDir(ctx, s.dir, arg)
		}},
}

// peerOpNamed is the operation of that name; nil for none.
func peerOpNamed(name string) *peerOp {
	for i := range peerOps {
		if peerOps[i].Name == name {
			return &peerOps[i]
		}
	}
	return nil
}

// PeerOperations lists the agent's operations in the order of its usage
// text (what cmd/rocekit-peer prints).
func PeerOperations() []PeerOperation {
	out := make([]PeerOperation, len(peerOps))
	for i, o := range peerOps {
		out[i] = o.PeerOperation
	}
	return out
}

// WritePeerUsage writes the agent's operations, one usage line each:
// "  rocekit-peer set-mtu '{"netdev":"eth0","mtu":1500}'".
func WritePeerUsage(w io.Writer, program string) error {
	var b strings.Builder
	for _, o := range PeerOperations() {
		line := "  " + program + " " + o.Name
		if o.Example != "" {
			line += " '" + o.Example + "'"
		}
		if o.Doc != "" {
			line += "   # " + o.Doc
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// callAs is the body of a Peer method: the operation's call with its
// result decoded into an R.
func callAs[R any](ctx context.Context, p *Peer, op string, arg any) (R, error) {
	var r R
	return r, p.call(ctx, op, arg, &r)
}
