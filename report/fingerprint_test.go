package report

import (
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

func TestFingerprintFromSources(t *testing.T) {
	snap := nic.Snapshot{Netdev: "ens1f0np0", MTU: 9000, RoCEPathMTU: 4096,
		Driver:   nic.Driver{Driver: "mlx5_core", Version: "6.1.0-50-amd64", FirmwareVersion: "16.35.2000 (MT_0000000080)", BusInfo: "0000:3b:00.0"},
		Link:     &nic.LinkSettings{SpeedMbps: 25000, Duplex: "Full"},
		Ring:     &nic.Ring{RxPending: 1024, TxPending: 1024},
		Channels: &nic.Channels{Combined: 8},
		Device:   nic.Device{NUMANode: 1, NodeCPUs: []int{24, 25, 26, 27}, PCI: &nic.PCIDevice{}},
	}
	gid, _ := rxe.ParseGID("0000:0000:0000:0000:0000:ffff:c612:0001")
	link := rxe.Link{Name: "rxe0", Ports: []rxe.Port{{Device: "rxe0", Port: 1, State: rxe.PortState(4), PhysState: rxe.PhysState(5), Netdev: "ens1f0np0"}}}
	sel := rxe.Selection{Entry: rxe.GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: gid, Type: rxe.GIDTypeRoCEv2}}
	fp := &Fingerprint{
		Kernel:     "6.1.0-50-amd64",
		NICs:       []NICFingerprint{NICFromSnapshot("a", snap)},
		RXE:        []RXEFingerprint{RXEFromLink("a", link, &sel)},
		Governor:   GovernorSummary([]irq.CPUGovernor{{CPU: 0, Governor: "powersave"}, {CPU: 1, Governor: "performance"}, {CPU: 2, Governor: "powersave"}}),
		IRQBalance: IRQBalanceState(nil),
	}
	diff(t, []Param{
		{"kernel", "6.1.0-50-amd64"},
		{"rxe[a/rxe0].netdev", "ens1f0np0"},
		{"rxe[a/rxe0].state", link.Ports[0].State.String() + "/" + link.Ports[0].PhysState.String()},
		{"rxe[a/rxe0].gid_index", "1"},
		{"rxe[a/rxe0].gid", "0000:0000:0000:0000:0000:ffff:c612:0001"},
		{"rxe[a/rxe0].gid_type", "RoCE v2"},
		{"nic[a/ens1f0np0].mtu", "9000"},
		{"nic[a/ens1f0np0].roce_path_mtu", "4096"},
		{"nic[a/ens1f0np0].driver", "mlx5_core"},
		{"nic[a/ens1f0np0].driver_version", "6.1.0-50-amd64"},
		{"nic[a/ens1f0np0].firmware", "16.35.2000 (MT_0000000080)"},
		{"nic[a/ens1f0np0].speed_mbps", "25000"},
		{"nic[a/ens1f0np0].duplex", "Full"},
		{"nic[a/ens1f0np0].ring", "rx 1024 tx 1024"},
		{"nic[a/ens1f0np0].channels", "combined 8 rx 0 tx 0"},
		{"nic[a/ens1f0np0].numa_node", "1"},
		{"nic[a/ens1f0np0].numa_node_cpus", "24-27"},
		{"nic[a/ens1f0np0].pci", "0000:3b:00.0"},
		{"governor", "powersave×2,performance×1"},
		{"irqbalance", "stopped"},
	}, fp.Fields())
}

func TestDiffFingerprints(t *testing.T) {
	a, b := sampleFingerprint(1500, 1024), sampleFingerprint(9000, 4096)
	b.Governor = ""
	b.Argv[1].Argv = append(b.Argv[1].Argv, "-q", "4")
	b.Extra = []Param{{"sysctl.net.core.rmem_max", "4194304"}}
	diff(t, []FieldDiff{
		{"nic[eth1].mtu", "1500", "9000"},
		{"nic[eth1].roce_path_mtu", "1024", "4096"},
		{"governor", "performance", ""},
		{"argv[client]", "ib_send_bw -d rxe0 -x 1 -F --report_gbits 198.18.0.1", "ib_send_bw -d rxe0 -x 1 -F --report_gbits 198.18.0.1 -q 4"},
		{"sysctl.net.core.rmem_max", "", "4194304"},
	}, DiffFingerprints(a, b))
	if d := DiffFingerprints(a, a); d != nil {
		t.Errorf("same fingerprint differs: %v", d)
	}
	if d := DiffFingerprints(nil, nil); d != nil {
		t.Errorf("nil fingerprints differ: %v", d)
	}
	diff(t, "governor: performance → —", FieldDiff{"governor", "performance", ""}.String())
}

// TestFingerprintNonRDMA: a netdev without an rxe link or RDMADevice (a
// veth under netperf) has no roce_path_mtu, so an MTU change is one
// environment difference, not two; with RDMADevice it is two.
func TestFingerprintNonRDMA(t *testing.T) {
	veth := func(mtu, path int, dev string) *Fingerprint {
		return &Fingerprint{NICs: []NICFingerprint{{Netdev: "veth0", MTU: mtu, RoCEPathMTU: path, NUMANode: -1, RDMADevice: dev}},
			RXE: []RXEFingerprint{{Link: "rxe0", Netdev: "eth1", GIDIndex: -1}}}
	}
	diff(t, []FieldDiff{{"nic[veth0].mtu", "1500", "9000"}}, DiffFingerprints(veth(1500, 1024, ""), veth(9000, 4096, "")))
	diff(t, []FieldDiff{{"nic[veth0].mtu", "1500", "9000"}, {"nic[veth0].roce_path_mtu", "1024", "4096"}},
		DiffFingerprints(veth(1500, 1024, "mlx5_0"), veth(9000, 4096, "mlx5_0")))
}
