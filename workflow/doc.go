// Package workflow holds the runbooks' steps as library calls: the perftest
// step (RunPerftest: repeats of one test between two runbook.Sides) and,
// beside it, the netperf round. Each takes options as data, runs with one
// selectable failure policy (Continue, Stop, Skip: what happens when every
// run failed), records both ends' fingerprint (kernel, rdma-core and
// perftest versions, driver and firmware, the command lines as run),
// counters, bottleneck verdict and findings in the report.Round, writes its
// archive and then appends it to the store, compares it with the store's
// previous round of the same test whatever changed, and returns all of it.
//
// The examples (softroce-baseline, mtu-sweep, qp-scaling) are flags plus a
// sequence of these calls; a test framework imports the same steps:
//
//	if err := sides.PrepareRXE(ctx, "rxe0", 9000, nil); err != nil { ... }
//	res, err := workflow.RunPerftest(ctx, sides, workflow.PerftestStep{
//		Options: perftest.Options{Test: perftest.SendBW, Iterations: 10000, ReportGbits: true},
//		Count:   3, Governor: "performance", Out: "out", Store: report.OpenStore("rounds.jsonl")})
//	// res.Round (stored, with Fingerprint and Findings), res.Comparison, res.Archive
//
// The UDP runbook's rounds are RunUDPRounds (netperf-udp-tuning is flags
// plus RunUDPPreflight, RunUDPRounds and WriteUDPReport):
//
//	rounds, _ := workflow.ParseUDPRounds("1,2,3,T", 9000) // the runbook's groups and a TCP round
//	res, err := workflow.RunUDPRounds(ctx, sides, workflow.UDPOptions{Rounds: rounds, Out: "out", Store: report.OpenStore("rounds.jsonl")})
//
// Add RDMAPreflight as a step's Preflight to run the soft-RoCE runbook's
// troubleshooting on both ends before the first pair.
//
// The rules the examples used to carry are here too (CheckMTUTookEffect,
// AnalyseQPs), so that their findings are stored with the rounds and the
// page reads them back. rocekittest.FakeSides runs a step on fakes
// (captured outputs played by host.Fake) without root.
package workflow
