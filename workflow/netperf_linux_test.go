package workflow_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
	"github.com/rocekit/rocekit/workflow"
)

// TestRunUDPRoundsNetns runs the runbook's groups 1 and 2 and the TCP
// reference with the real netperf between two namespaces joined by a
// veth pair (root): group 2 sets MTU 9000 on both ends and sends
// 8972-byte datagrams, so the receiver's frames average above 1500
// bytes; netserver's own socket is read in each UDP run and agrees with
// the namespace's Udp RcvbufErrors; both MTUs are back after Restore.
func TestRunUDPRoundsNetns(t *testing.T) {
	labtest.Root(t)
	if _, err := exec.LookPath("netserver"); err != nil {
		t.Skip("no netserver")
	}
	labtest.NetnsPair(t, "rkudpnear", "rkudpfar", "rkudp0", "rkudp1", "198.18.96.1/24", "198.18.96.2/24")

	dir := t.TempDir()
	sides := &runbook.Sides{Mode: runbook.TwoNetns, NearNetdev: "rkudp0", FarNetdev: "rkudp1",
		Near: &runbook.Local{Netns: "rkudpnear", Journal: filepath.Join(dir, "near.jsonl")},
		Far:  &runbook.Local{Netns: "rkudpfar", Journal: filepath.Join(dir, "far.jsonl")}}
	rounds, err := workflow.ParseUDPRounds("1,2,T", 9000)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := workflow.RunUDPRounds(ctx, sides, workflow.UDPOptions{Rounds: rounds, Count: 2, Out: filepath.Join(dir, "out"),
		Store:   report.OpenStore(filepath.Join(dir, "rounds.jsonl")),
		Netperf: netperf.Options{Family: netperf.IPv4, Length: time.Second, MessageSize: 1400}})
	if rerr := sides.Restore(); rerr != nil {
		t.Errorf("restore: %v", rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		rcvbuf, _ := r.Round.Metric("udp_rcvbuf_errors")
		frame, _ := r.Round.Metric("recv_frame_mean")
		t.Logf("%s: sockets %+v, RcvbufErrors per run %v, mean frame %v", r.Round.Name, r.Sockets, rcvbuf.Values, frame.Values)
		if f, ok := udpFindingOf(r.Round, report.RuleSocketDropsDisagree); ok {
			t.Errorf("%s: %s", r.Round.Name, f.Summary)
		}
	}
	for _, r := range results[:2] {
		if len(r.Sockets) != 2 || r.Sockets[0].Sockets == 0 || r.Sockets[0].Samples == 0 {
			t.Errorf("%s: netserver's socket %+v, want it seen in both runs", r.Round.Name, r.Sockets)
		}
	}
	if m, ok := results[1].Round.Metric("recv_frame_mean"); !ok || report.Summarize(m).Median <= 1500 {
		t.Errorf("group 2: receiver's mean frame %v, want above 1500 bytes", m.Values)
	}
	if m, ok := results[0].Round.Metric("recv_frame_mean"); !ok || report.Summarize(m).Median > 1514 {
		t.Errorf("group 1: receiver's mean frame %v, want at most 1514 bytes", m.Values)
	}
	if results[2].Sockets != nil {
		t.Errorf("round T: sockets %+v, want none read (TCP)", results[2].Sockets)
	}
	if _, ok := udpFindingOf(results[2].Round, workflow.RuleUDPAgainstTCP); !ok {
		t.Errorf("round T: no udp_against_tcp finding: %+v", results[2].Round.Findings)
	}
	for _, l := range []struct{ ns, dev string }{{"rkudpnear", "rkudp0"}, {"rkudpfar", "rkudp1"}} {
		out, _ := exec.Command("ip", "-n", l.ns, "link", "show", l.dev).CombinedOutput()
		if !strings.Contains(string(out), "mtu 1500") {
			t.Errorf("%s after Restore: %s", l.dev, out)
		}
	}
}
