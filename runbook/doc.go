// Package runbook holds the steps the examples share, so that a small main
// reads like the runbook it replaces: two Sides (this host, and the far end
// in loopback, in a network namespace, or on another host over SSH through
// the rocekit-peer agent), each preparing rxe, setting MTUs, spreading IRQs
// and reading counters through a tune journal that Restore undoes; Flags
// that choose the sides; Progress lines with an ETA; and a Context that
// ends on Ctrl-C so that the restore runs.
//
// A two-host ib_send_bw pair:
//
//	f := runbook.Flags{Netdev: "eth0", Peer: "root@198.18.0.2", Journal: "journal.jsonl", PeerAgent: "rocekit-peer"}
//	ctx, cancel := runbook.Context(time.Hour)
//	defer cancel()
//	sides, err := f.Open(ctx)
//	if err != nil { ... }
//	defer sides.Restore()
//	far, err := sides.Far.PrepareRXE(ctx, runbook.RXEConfig{Netdev: sides.FarNetdev, Name: "rxe0", MTU: 9000})
//	near, err := sides.Near.PrepareRXE(ctx, runbook.RXEConfig{Netdev: sides.NearNetdev, Name: "rxe0", MTU: 9000})
//	opts := runbook.PerftestOptions(perftest.Options{Test: perftest.SendBW, Iterations: 10000, ReportGbits: true}, sides, far, near)
//	pair, err := perftest.RunPair(ctx, sides.Far.Runner(), sides.Near.Runner(), far.Addr, opts)
package runbook
