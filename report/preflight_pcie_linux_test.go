package report

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/sysroot"
)

// TestPreflightPCIeDegraded: a NIC at Gen4 x8 in a slot that trained
// below its Gen5 x16 (a sysfs fixture made from a real capture) is in the
// fingerprint as such and raises the preflight's "PCIe link degraded";
// the full-width function of the same tree raises nothing.
func TestPreflightPCIeDegraded(t *testing.T) {
	r := nic.Root(sysroot.Dir("../internal/sysfs/testdata/pcie-x8-of-x16"))
	for _, c := range []struct {
		addr     string
		degraded bool
	}{{"0000:01:00.0", true}, {"0000:03:00.0", false}} {
		d, err := r.PCIDevice(c.addr)
		if err != nil {
			t.Fatal(err)
		}
		s := nic.Snapshot{Netdev: "eth1", MTU: 9000, Device: d, Driver: nic.Driver{Driver: "mlx5_core", BusInfo: c.addr},
			Link: &nic.LinkSettings{SpeedMbps: 100000, LinkDetected: true}}
		fp := NICFromSnapshot("a", s)
		if fp.PCIeDegraded != c.degraded || (c.degraded && fp.PCIe != "16 GT/s x8 (of 32 GT/s x16)") {
			t.Errorf("%s: fingerprint PCIe %q degraded %v", c.addr, fp.PCIe, fp.PCIeDegraded)
		}
		fs := CheckPreflight([]HostFacts{{Role: "server", Host: "a", NIC: fp, LinkDetected: true}}, PreflightAsk{})
		var got *Finding
		for i := range fs {
			if fs[i].Rule == RulePCIeDegraded {
				got = &fs[i]
			}
		}
		if (got != nil) != c.degraded || (got != nil && (!strings.Contains(got.Summary, "eth1's PCIe link is degraded: 16 GT/s x8 (of 32 GT/s x16)") || got.Severity != SeverityWarning)) {
			t.Errorf("%s: finding %+v", c.addr, got)
		}
	}
}
