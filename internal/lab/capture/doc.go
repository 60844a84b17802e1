// Package capture runs real RDMA, network and kernel tools inside a lab guest and records their
// output as test fixtures for rocekit's parsers.
//
// It runs as root inside a QEMU guest of the lab (see internal/lab): it loads rdma_rxe, creates
// rxe0 on a veth pair, moves two NICs into the namespaces nsA and nsB, and then runs a table of
// cases (perftest pairs, netserver/netperf pairs, rdma, ethtool, /proc and /sys snapshots).
// A failing case is data too: every case is recorded, and only setup failures and failures of
// cases that are expected to succeed make [Summary.Failed] true.
//
// Each case is written to DIR/<group>/<case>/: a case.json ([Case], with one [Side] per
// process or copied file) and the byte-exact stdout and stderr of every side. File snapshots
// are copied into a tree that mirrors the file system (for example
// tree/sys/class/infiniband/rxe0/ports/1/gids/0), so that parsers with an injectable root can
// read them directly.
//
// A parser test reads a fixture like this:
//
//	c, err := capture.ReadCase("rocekittest/captures/bookworm/perftest/send-bw-gbits")
//	if err != nil {
//		t.Fatal(err)
//	}
//	client, _ := c.Side(capture.RoleClient)
//	out, err := os.ReadFile(filepath.Join("rocekittest/captures/bookworm/perftest/send-bw-gbits", client.Stdout))
//
// The command internal/lab/cmd/capture is a thin wrapper around [Run]:
//
//	capture -out /tmp/fixtures -suite bookworm -only '^perftest/send-'
package capture
