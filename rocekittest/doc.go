// Package rocekittest is a test kit for code that drives rocekit, in the
// way net/http/httptest is for HTTP handlers: real tool outputs captured
// in the lab, and fakes made from them that perftest.RunPair,
// netperf.StartNetserver and netperf.Run accept as they are, so a test
// framework's orchestration code is unit-tested without RDMA, root or a
// second host.
//
// One package, not perftest/perftesttest and netperf/netperftest: the
// perftest and netperf captures share one folder layout and one case.json
// format (command, wrapper, exit, tool version), are looked up the same
// way, and a user's test usually needs both.
//
// The captures (captures/<suite>/{perftest,netperf}/<case>/) were made by
// `make fixtures` in the lab's QEMU guests: bookworm (kernel 6.1, perftest
// 4.5-0.17, netperf 2.7.0) and trixie (kernel 6.12, perftest 25.01,
// netperf 2.7.1). They are embedded, so another module's tests read them
// through Cases and Lookup without copying a file: the tools' runs and
// the kernel files and tool outputs beside them (groups proc: interrupts,
// softirqs, softnet_stat, stat, snmp, net/dev, /proc/irq; sysfs: a NIC's
// and rxe0's /sys trees with the GID table show_gids reads; ethtool: -i,
// -S, -g, -l, -k, -c; rdma; setup), a file by its guest path (Case.File)
// or a whole tree as the packages' root (Case.Tree: rxe.NewRootFS). The
// public outputs of real hardware (testdata/realworld's /proc files,
// ethtool -S and show_gids, with their sources) are there too, as
// "realworld/AREA/NAME". Cases whose outputs no
// lab run produced are made only by the Synthetic* builders, and say so
// (Case.Synthetic, Case.Source).
//
//	c, _ := rocekittest.Lookup("trixie/perftest/send-bw")
//	srv, cli, _ := rocekittest.FakePair(c)
//	pr, err := perftest.RunPair(ctx, srv, cli, "198.18.0.1", perftest.Options{Test: perftest.SendBW})
//
// FakeSides are two runbook ends made of such fakes, for the library's
// steps (workflow.RunPerftest, workflow.RunUDPRounds):
//
//	sides, _ := rocekittest.FakeSides(c)
//	res, err := workflow.RunPerftest(ctx, sides, workflow.PerftestStep{Options: perftest.Options{Test: perftest.SendBW}})
//
// Similar to: cp -r rocekit/testdata/trixie mytests/ and a host.Fake by hand.
package rocekittest
