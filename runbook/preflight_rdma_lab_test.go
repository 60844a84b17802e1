//go:build lab

package runbook

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
)

// TestLabPreflightRDMA: the soft-RoCE preflight on a guest's real
// rdma_rxe, near end in the guest's namespace and far end in another,
// after PrepareRXE on both: perftest's tools are there, both ports ACTIVE,
// rxe's UDP 4791 socket bound (in the far end's namespace, or, on kernels
// whose rxe keeps it in the initial one, said so), and both GID addresses
// answer each other's DF echo at MTU 4200. Then an nft rule on the far
// end drops UDP 4791 and is quoted. Also the host test's body
// (testPreflightRDMA) on the guest's kernel and nft.
func TestLabPreflightRDMA(t *testing.T) {
	labtest.Guest(t)
	t.Run("netns", testPreflightRDMA)

	far := fmt.Sprintf("plf-%d", os.Getpid())
	labtest.Netns(t, far)
	labtest.Veth(t, "plr0", "plr1", "198.18.97.1/24")
	for _, argv := range [][]string{{"ip", "link", "set", "plr1", "netns", far}, {"ip", "-n", far, "addr", "add", "198.18.97.2/24", "dev", "plr1"},
		{"ip", "-n", far, "link", "set", "plr1", "up"}} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", argv, err, out)
		}
	}
	dir := t.TempDir()
	s := &Sides{Mode: TwoNetns, Near: &Local{Journal: filepath.Join(dir, "near.jsonl")}, Far: &Local{Netns: far, Journal: filepath.Join(dir, "far.jsonl")},
		NearNetdev: "plr0", FarNetdev: "plr1"}
	defer func() {
		if err := s.Restore(); err != nil {
			t.Errorf("restore: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := s.PrepareRXE(ctx, "rxepl0", 4200, nil)
	farInfo, nearInfo := s.FarRXE, s.NearRXE
	if err != nil {
		t.Fatalf("PrepareRXE: %v", err)
	}
	ask := RDMAAsk{Near: nearInfo, Far: farInfo, Tools: []string{"ib_send_bw", "ib_send_lat", "rdma"}}
	facts, fs, err := s.PreflightRDMA(ctx, ask)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Logf("%s %s: %s", f.Severity, f.Rule, f.Summary)
		switch f.Rule {
		case report.RuleRDMAToolMissing:
			if f.Severity == report.SeverityCritical {
				t.Errorf("a perftest tool is missing: %s", f.Summary)
			}
		case report.RuleRoCEv2Unbound, report.RuleRDMANoDevice, report.RuleRDMAPortNotActive, report.RuleGIDUnreachable, report.RuleGIDPathMTU, report.RuleRDMAFirewall, report.RulePerftestPortBusy:
			t.Errorf("unexpected %s: %s", f.Rule, f.Summary)
		}
	}
	if len(facts) != 2 || facts[0].Device != nearInfo.Device || facts[1].Device != farInfo.Device || !facts[0].PortActive || !facts[1].PortActive {
		t.Fatalf("facts %+v", facts)
	}
	if len(facts[0].RoCEv2Bound) == 0 || len(facts[1].RoCEv2Bound)+len(facts[1].RoCEv2BoundHost) == 0 {
		t.Errorf("UDP 4791: near %v, far %v (host %v)", facts[0].RoCEv2Bound, facts[1].RoCEv2Bound, facts[1].RoCEv2BoundHost)
	}
	for _, f := range facts {
		if len(f.Reach) != 1 || !f.Reach[0].Carried || f.Reach[0].MTU != 4200 || f.GID == "" {
			t.Errorf("%s: reach %+v, GID %q", f.Role, f.Reach, f.GID)
		}
	}

	nft := exec.Command("ip", "netns", "exec", far, "nft", "-f", "-")
	nft.Stdin = strings.NewReader("table inet filter {\n\tchain input {\n\t\ttype filter hook input priority 0; policy accept;\n\t\tudp dport 4791 drop\n\t}\n}\n")
	if out, err := nft.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v: %s", err, out)
	}
	_, fs, err = s.PreflightRDMA(ctx, ask)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fs {
		found = found || f.Rule == report.RuleRDMAFirewall && strings.HasPrefix(f.Summary, "far") && strings.Contains(f.Summary, "udp dport 4791 drop")
	}
	if !found {
		t.Errorf("the far end's rule on UDP 4791 was not quoted: %+v", fs)
	}
}
