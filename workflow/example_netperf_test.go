package workflow_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/workflow"
)

// The runbook's three UDP groups and a TCP_STREAM reference between two
// fake ends: each round is archived, stored with its findings, and the
// MTU rounds send 8972-byte datagrams. On real hosts, Sides come from
// runbook.Local (a namespace here) or runbook.DialPeer.
func ExampleRunUDPRounds() {
	c := rocekittest.SyntheticUDPStream(rocekittest.UDPStreamNumbers{Sent: 100000, Received: 100000, Elapsed: time.Second})
	sides, _ := rocekittest.FakeSides(c) // near eth0 198.18.0.1, far eth1 198.18.0.2

	dir, _ := os.MkdirTemp("", "udp-rounds")
	defer os.RemoveAll(dir)
	rounds, _ := workflow.ParseUDPRounds("1,2,3,T", 9000)
	results, err := workflow.RunUDPRounds(context.Background(), sides, workflow.UDPOptions{
		Rounds: rounds, Count: 1, Out: dir, Store: report.OpenStore(filepath.Join(dir, "rounds.jsonl")),
		Netperf: netperf.Options{Length: time.Second, MessageSize: 1400, RemoteSocketBuffer: 2 << 20, LocalSocketBuffer: 2 << 20},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		m, _ := r.Round.Param("msg_size")
		mtu, _ := r.Round.Param("netdev_mtu")
		var rules []string
		for _, f := range r.Round.Findings {
			rules = append(rules, f.Rule)
		}
		fmt.Printf("%s: MTU %s, -m %s, archived %v, findings %v\n", r.Round.Name, mtu, m, r.Archive != "", rules)
	}
	// Output:
	// udp_stream_1_default: MTU 1500, -m 1400, archived true, findings []
	// udp_stream_2_mtu: MTU 9000, -m 8972, archived true, findings []
	// udp_stream_3_mtu_irqspread: MTU 9000, -m 8972, archived true, findings []
	// tcp_stream_T: MTU 9000, -m default, archived true, findings [udp_against_tcp]
}
