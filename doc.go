// Package rocekit measures and tunes soft-RoCE (rdma_rxe) and NIC
// performance on Linux, replacing the shell runbooks of the field
// (modprobe rdma_rxe, rdma link add, show_gids, ip link set mtu,
// set_irq_affinity.sh, ib_send_bw/ib_send_lat, netserver/netperf,
// ethtool -S, mpstat) with typed, tested, revertible Go calls, and records
// every round so that each change is judged against a baseline.
//
// The packages, by what they own (ARCHITECTURE.md has the layers and the
// import rule, RUNBOOKS.md where rocekit departs from the runbooks):
//
//   - host: where a command runs (local, a network namespace, SSH)
//   - rxe: rdma_rxe, rxe links, GID tables and RoCE v2 index selection
//   - nic: MTU, link state, ethtool information and counters, NUMA
//   - irq: /proc/interrupts, IRQ affinity, softirq load, CPU governor
//   - perftest, netperf: options, runs and typed parsers of the tools
//   - tune: a crash-safe journal of every change, and Restore
//   - report: rounds, baselines, statistics, findings, a CI gate
//     (report/plot and report/page draw them)
//   - firewall, kmsg: firewall rules and the kernel log, read as a
//     preflight and per round
//   - runbook: the two sides of a run (this host, a namespace, or SSH
//     through cmd/rocekit-peer) and the steps on both ends
//   - workflow: the runbooks' steps as library calls (a perftest step,
//     a netperf round), each judged, archived and stored
//   - fleet, topo: many pairs and host matrices; namespaces and veths
//   - rocekittest: real captures and fakes for testing code built on
//     rocekit without RDMA
//   - internal/lab: QEMU guests with real kernels where all of this is tested
//
// A round in short (Example runs it on outputs captured in the lab):
//
//	res, err := perftest.Parse(clientStdout)          // typed rows, units, warnings
//	round, err := report.FromPerftest("send_bw", start, res)
//	cmp := report.Compare(baseline, round, report.CompareOptions{})
//
// Everything that touches a kernel is tested on real ones: the lab boots
// Debian kernels with rdma_rxe under QEMU and runs Go programs in them:
//
//	go run ./internal/lab/cmd/lab run -suite trixie -- rdma link show
package rocekit
