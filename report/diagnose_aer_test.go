package report

import (
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/nic"
)

// TestCheckAER: the kernel ABI doc's real sample (2 receiver errors)
// against a read of zeros is one corrected-error warning naming the
// counter; no growth is no finding.
func TestCheckAER(t *testing.T) {
	b, err := os.ReadFile("../testdata/realworld/aer/kernel-abi-4.19-correctable/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	after, err := nic.ParseAERFile(b)
	if err != nil {
		t.Fatal(err)
	}
	before := nic.AERFile{Names: after.Names, Counts: map[string]uint64{}}
	fs := CheckAER("server eth1", nic.AERCounts{Correctable: after}.Sub(nic.AERCounts{Correctable: before}))
	if len(fs) != 1 || fs[0].Severity != SeverityWarning || !strings.Contains(fs[0].Summary, "server eth1: 2 corrected PCIe errors during the round (Receiver Error 2)") {
		t.Fatalf("%+v", fs)
	}
	if fs := CheckAER("server eth1", nic.AERCounts{Correctable: after}.Sub(nic.AERCounts{Correctable: after})); fs != nil {
		t.Errorf("no growth: %+v", fs)
	}
}
