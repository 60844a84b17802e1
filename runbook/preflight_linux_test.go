package runbook

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
)

// TestPreflightFirewallInNetns: the far end's namespace drops netserver's
// control port with a real nft rule; the preflight quotes that rule as
// critical, and reads both ends' kernel and limits.
func TestPreflightFirewallInNetns(t *testing.T) { testPreflightFirewall(t) }

// testPreflightFirewall is the test's body, also run in the lab's guests
// (TestLabPreflightFirewall) with their Debian kernels and nft.
func testPreflightFirewall(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("nft not installed (apt-get install nftables)")
	}
	near, far := fmt.Sprintf("pfn-%d", os.Getpid()), fmt.Sprintf("pff-%d", os.Getpid())
	labtest.NetnsPair(t, near, far, "pf0", "pf1", "", "")
	nft := exec.Command("ip", "netns", "exec", far, "nft", "-f", "-")
	nft.Stdin = strings.NewReader("table inet filter {\n\tchain input {\n\t\ttype filter hook input priority 0; policy accept;\n\t\ttcp dport 12865 drop\n\t}\n}\n")
	if out, err := nft.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v: %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &Sides{Mode: TwoNetns, Near: &Local{Netns: near}, Far: &Local{Netns: far}, NearNetdev: "pf0", FarNetdev: "pf1"}
	facts, fs, err := s.Preflight(ctx, NetperfPorts, report.PreflightAsk{SocketBufferBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 2 || facts[0].Kernel == "" || facts[1].Sysctls["net.core.rmem_max"] == "" {
		t.Fatalf("facts %+v", facts)
	}
	var blocks, limits []string
	for _, f := range fs {
		switch f.Rule {
		case report.RuleFirewall:
			blocks = append(blocks, f.Summary)
		case report.RuleBufferLimit:
			limits = append(limits, f.Summary)
		}
	}
	want := "far: the firewall stops tcp/12865: inet filter input: tcp dport 12865 drop (line 4)"
	if len(blocks) != 1 || !strings.HasPrefix(blocks[0], "far") || !strings.Contains(blocks[0], "tcp dport 12865 drop") {
		t.Errorf("firewall findings %q, want %q", blocks, want)
	}
	// 1 GiB is over any default limit: both ends, rmem and wmem.
	if len(limits) != 4 {
		t.Errorf("limit findings %q", limits)
	}
}
