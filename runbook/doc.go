// Package runbook is the two ends of a run, so that a test framework (or a
// small main) reads like the runbook it replaces. A Side is one end: Local
// is this host or a network namespace on it; Peer is another host reached
// over SSH, read and changed by the rocekit-peer agent there (PeerAgentMain,
// cmd/rocekit-peer), which runs the same Local code. Each side prepares
// rxe, sets MTUs and sysctls, spreads IRQs and sets governors through a
// tune journal that Restore undoes, and reads what a round compares: its
// netdev (Netdev), counters (Counters, Between), host facts (Host),
// RDMA port counters and kernel log. Sides pairs two of them for what
// touches both ends: PrepareRXE, SetMTU, Preflight, RepeatPair and
// PerftestOptions.
//
// No flags are needed; a two-host ib_send_bw pair from a framework:
//
//	near := &runbook.Local{Journal: "journal.jsonl"}
//	far, err := runbook.DialPeer(ctx, runbook.PeerConfig{Target: "root@198.18.0.2", Agent: "rocekit-peer"})
//	if err != nil { ... }
//	if err := far.Restore(ctx); err != nil { ... } // what a crashed run left there
//	sides := &runbook.Sides{Mode: runbook.TwoHosts, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth0"}
//	defer sides.Restore()
//	err = sides.PrepareRXE(ctx, "rxe0", 9000, nil) // sides.NearRXE, sides.FarRXE
//	opts := sides.PerftestOptions(perftest.Options{Test: perftest.SendBW, Iterations: 10000, ReportGbits: true})
//	pairs, err := runbook.RepeatPair(ctx, sides, sides.FarRXE, opts, 3, nil, "ib_send_bw")
//
// workflow.RunPerftest is that step whole: the round, both ends'
// fingerprints, findings, archive and store.
//
// For loopback, Far is Near (Mode Loopback); for a far end in a namespace
// of this host, Far is &runbook.Local{Netns: "peer", Journal: ...} (Mode
// TwoNetns). A Local's journal left by a crash is undone with
// tune.Recover(journal) before the run. The examples build their Sides
// from flags (-netdev, -peer, -peer-netns, ...) in examples/internal/cli.
package runbook
