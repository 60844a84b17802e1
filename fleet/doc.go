// Package fleet measures many pairs at once and whole fleets of hosts:
// parallel perftest and netperf pairs between the NICs of two hosts
// (ngc_multinode_perf's job), host × host matrices run over SSH in
// scheduled rounds (k8s-netperf's), the outliers of a matrix (a slow link
// or a slow host), and a line-rate gate for CI.
//
// Parallel pairs between two hosts, one per NIC pair, each pinned to its
// NIC's share of the NUMA-local CPUs, clients released together once
// every server listens:
//
//	specs, err := fleet.NICPairs(serverHost, clientHost, perftest.Options{Test: perftest.WriteBW, Duration: 10 * time.Second, ReportGbits: true}, 0, true)
//	par, err := fleet.RunParallel(ctx, specs) // par.SumBWGbps, par.Pairs[par.Slowest]; a *PairsError names failed pairs
//
// A fleet matrix, resumable from a store:
//
//	sched, err := fleet.AllPairs(len(hosts), 1) // round-robin: n-1 rounds, each host in one pair per round
//	m, err := fleet.Plan{Name: "rack12", Hosts: hosts, Schedule: sched.Limit(32),
//		Measurer: fleet.PerftestMeasurer{Options: opts, Pin: true}, PairDeadline: 2 * time.Minute,
//		Store: report.OpenStore("rack12.jsonl"), Progress: os.Stderr}.Run(ctx)
//	m.WriteMarkdown(os.Stdout)
//	for _, o := range fleet.Outliers(m, 0) { fmt.Println(o) } // "link h3–h7: ...", "host h9 is slow with every partner ..."
//	if err := (fleet.LineRateGate{MinRatio: 0.9}).Check(m); err != nil { ... } // *GateError lists the pairs below 90 % of line rate
//
// Hosts come from runbook sides (PrepareHost: this host, a namespace, or a
// host over SSH through rocekit-peer), or are described directly (Host,
// NIC). Which NICs of two hosts form a pair is decided by rail, or by
// subnet (Links). How the schedule, the store and the SSH fan-out behave
// at 1,000 hosts, and what runs where under Kubernetes, is in FLEET.md.
//
// Similar to: ngc_multinode_perf.sh, k8s-netperf, and shell loops of ssh ib_write_bw
package fleet
