package nic

import (
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// A real capture of a link trained down to 16 GT/s x8 of 32 GT/s x16
// (internal/sysfs/testdata/pcie-x8-of-x16, from a public bug report).
func TestPCIeLinkDegradedFromCapture(t *testing.T) {
	r := Root(sysroot.Dir("../internal/sysfs/testdata/pcie-x8-of-x16"))
	d, err := r.PCIDevice("0000:01:00.0")
	if err != nil {
		t.Fatal(err)
	}
	if d.PCI == nil || d.PCI.Link == nil {
		t.Fatalf("no PCIe link: %+v", d.PCI)
	}
	l := *d.PCI.Link
	if l != (PCIeLink{GTps: 16, Width: 8, MaxGTps: 32, MaxWidth: 16}) || !l.Degraded() || l.String() != "16 GT/s x8 (of 32 GT/s x16)" {
		t.Errorf("link %+v %q degraded %v", l, l, l.Degraded())
	}
	pay, err := l.Current().PayloadGbps()
	if err != nil || pay < 107 || pay > 110 {
		t.Errorf("payload %v %v, want about 109 Gbit/s for Gen4 x8", pay, err)
	}
	full, err := r.PCIDevice("0000:03:00.0")
	if err != nil || full.PCI.Link == nil || full.PCI.Link.Degraded() {
		t.Errorf("full link: %+v %v", full.PCI, err)
	}
}
