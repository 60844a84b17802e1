package runbook

import (
	"os"
	"testing"

	"github.com/rocekit/rocekit/nic"
)

// TestBetweenAER: two Counters reads with AER counters give their growth
// (the kernel ABI doc's real sample against itself with one error less);
// a read without AER gives none.
func TestBetweenAER(t *testing.T) {
	b, err := os.ReadFile("../testdata/realworld/aer/kernel-abi-4.19-correctable/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	after, err := nic.ParseAERFile(b)
	if err != nil {
		t.Fatal(err)
	}
	before := after
	before.Counts = map[string]uint64{"Receiver Error": 1}
	before.Total = 1
	g, err := (Counters{AER: &nic.AERCounts{Correctable: after}}).Sub(Counters{AER: &nic.AERCounts{Correctable: before}}, Netdev{})
	if err != nil || g.AER == nil || g.AER.Correctable.Counts["Receiver Error"] != 1 || g.AER.Total() != 1 {
		t.Fatalf("%+v, %v", g.AER, err)
	}
	if g, _ := (Counters{AER: &nic.AERCounts{Correctable: after}}).Sub(Counters{}, Netdev{}); g.AER != nil {
		t.Errorf("one read without AER: %+v", g.AER)
	}
}
