package irq

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realworldDir holds outputs of real hosts found in public reports, each in
// <case>/ with its source.json (see testdata/realworld/README.md).
const realworldDir = "../testdata/realworld/proc"

// realworldProc has the expected values of every case folder, read off the
// text. A folder without an entry fails TestRealworldProc.
var realworldProc = map[string]func(t *testing.T, dir string){
	"interrupts-azure-mana-grep":           rwAzureMANAGrep,
	"interrupts-cx5-ryzen-grep":            rwCX5RyzenGrep,
	"interrupts-aws-ena-4cpu":              rwAWSENA,
	"interrupts-wsl2-hyperv-virtio":        rwWSL2,
	"interrupts-xen-arm64-vck190":          rwXenARM64,
	"interrupts-xen-hvm-e1000e":            rwXenHVM,
	"interrupts-arm64-rk3568-r8125":        rwRK3568,
	"interrupts-azure-mlx5-hyperv-fixture": rwAzureMlx5Fixture,
	"interrupts-azure-mana-hwc-fixture":    rwAzureMANAFixture,
	"interrupts-gcp-gve-fixture":           rwGVEFixture,
	"interrupts-hyperv-nvme-tabs":          rwHyperVTabs,
	"interrupts-mlx5-40cpu-elided":         rwElided,
	"interrupts-i40e-vfio-guest":           rwI40EGuest,
}

// rwSource is the part of source.json every case must have.
type rwSource struct {
	URL, Title, Retrieved, Device, Tool, Version, Command, Whitespace, Notes string
}

func TestRealworldProc(t *testing.T) {
	ents, err := os.ReadDir(realworldDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		seen[e.Name()] = true
		check, ok := realworldProc[e.Name()]
		if !ok {
			t.Errorf("%s: no expected values in realworldProc", e.Name())
			continue
		}
		dir := filepath.Join(realworldDir, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			var src rwSource
			b, err := os.ReadFile(filepath.Join(dir, "source.json"))
			if err == nil {
				err = json.Unmarshal(b, &src)
			}
			if err != nil || src.URL == "" || src.Device == "" || src.Retrieved == "" ||
				!slices.Contains([]string{"intact", "expanded", "reflowed", "truncated"}, src.Whitespace) {
				t.Errorf("source.json: %+v, %v", src, err)
			}
			check(t, dir)
		})
	}
	for name := range realworldProc {
		if !seen[name] {
			t.Errorf("realworldProc has %s, testdata has no such folder", name)
		}
	}
}

func rwBytes(t *testing.T, dir, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rwLines parses a file with ParseInterruptLines and the CPUs 0 to n-1.
func rwLines(t *testing.T, dir, file string, n int) (Interrupts, error) {
	t.Helper()
	return ParseInterruptLines(bytes.NewReader(rwBytes(t, dir, file)), seq(0, n-1))
}

// rwParse parses a file with its header and fails on any error.
func rwParse(t *testing.T, dir, file string) Interrupts {
	t.Helper()
	in, err := ParseInterrupts(bytes.NewReader(rwBytes(t, dir, file)))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return in
}

// rwLine is what a test expects of one numbered line.
type rwLine struct {
	IRQ               int
	Chip, HWIRQ, Type string
	Actions           []string
	Total             uint64
}

func rwCheckLines(t *testing.T, in Interrupts, want []rwLine) {
	t.Helper()
	for _, w := range want {
		l, ok := in.ByIRQ(w.IRQ)
		got := rwLine{IRQ: l.IRQ, Chip: l.Chip, HWIRQ: l.HWIRQ, Type: l.Type, Actions: l.Actions, Total: l.Total()}
		if diff := cmp.Diff(w, got); !ok || diff != "" {
			t.Errorf("IRQ %d (-want +got):\n%s", w.IRQ, diff)
		}
	}
}

// rwIRQ is what a test expects of one of a NIC's IRQs.
type rwIRQ struct {
	IRQ   int
	Role  Role
	Queue int
	Dir   Direction
}

func rwCheckNIC(t *testing.T, in Interrupts, netdev, pci, virtio string, want []rwIRQ) Netdev {
	t.Helper()
	irqs, _ := matchIRQs(in, netdev, pci, virtio, nil, nil)
	var got []rwIRQ
	for _, q := range irqs {
		got = append(got, rwIRQ{q.IRQ, q.Role, q.Queue, q.Direction})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s%s%s IRQs (-want +got):\n%s", netdev, pci, virtio, diff)
	}
	return Netdev{Name: netdev, PCI: pci, NUMANode: -1, IRQs: irqs}
}

// rwVerdict is what a test expects of a Distribution.
type rwVerdict struct {
	Total                  uint64
	Busiest                int
	SharePct               float64 // to 0.1 %
	Idle, Concentrated, OK bool
	Reasons                []string
}

func rwCheckVerdict(t *testing.T, d Distribution, want rwVerdict) {
	t.Helper()
	got := rwVerdict{d.Total, d.Busiest, math.Round(1000*d.BusiestShare) / 10, d.Idle, d.Concentrated, d.OK, d.Reasons}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
}

// rwAzureMANAGrep: "grep mana /proc/interrupts" twice on a 4-vCPU Azure
// VM; the mail wrapped the first block's last line.
func rwAzureMANAGrep(t *testing.T, dir string) {
	if _, err := ParseInterrupts(bytes.NewReader(rwBytes(t, dir, "before.txt"))); !errors.Is(err, ErrNoHeader) || !errors.Is(err, ErrParse) {
		t.Errorf("ParseInterrupts without header: err = %v, want ErrNoHeader", err)
	}
	before, err := rwLines(t, dir, "before.txt", 4)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 5 || pe.Text != "@pci:7870:00:00.0" {
		t.Errorf("before: err = %v, want a ParseError for line 5 (the wrapped name)", err)
	}
	rwCheckLines(t, before, []rwLine{
		{25, "Hyper-V PCIe MSI", "4138200989697", "edge", []string{"mana_q0@pci:7870:00:00.0"}, 1 + 103 + 2989138},
		{28, "Hyper-V PCIe MSI", "4138200989700", "edge", []string{"mana_q3"}, 3565461 + 1},
	})
	// The wrapped line lost its PCI address: only three queues are found.
	rwCheckNIC(t, before, "", "7870:00:00.0", "", []rwIRQ{
		{25, RoleQueue, 0, DirRXTX}, {26, RoleQueue, 1, DirRXTX}, {27, RoleQueue, 2, DirRXTX},
	})
	after, err := rwLines(t, dir, "after.txt", 4)
	if err != nil || len(after.Lines) != 4 {
		t.Fatalf("after: %d lines, %v", len(after.Lines), err)
	}
	dev := rwCheckNIC(t, after, "", "7870:00:00.0", "", []rwIRQ{
		{25, RoleQueue, 0, DirRXTX}, {26, RoleQueue, 1, DirRXTX}, {27, RoleQueue, 2, DirRXTX}, {28, RoleQueue, 3, DirRXTX},
	})
	// Between the samples mana_q2 moved to CPU0, beside mana_q3: CPU0 took
	// 157181+28397 of 48946+7087+(157181+10+10406)+28397.
	rwCheckVerdict(t, Distribute(dev, before, after, nil, Thresholds{}), rwVerdict{
		Total: 252027, Busiest: 0, SharePct: 73.6, Concentrated: true,
		Reasons: []string{"CPU0 took 74% of 252027 queue interrupts, from 2 of 4 IRQs"},
	})
	// Since boot, queues 0 and 2 share CPU3 but no CPU takes half.
	rwCheckVerdict(t, SinceBoot(dev, after, nil, Thresholds{}), rwVerdict{
		Total: 13809677, Busiest: 3, SharePct: 43.8, OK: true,
		Reasons: []string{"4 queue IRQs fired on 3 CPUs (0,2-3); busiest CPU3 took 44% of 13809677"},
	})
}

// rwCX5RyzenGrep: "cat /proc/interrupts | grep mlx" on a 12-CPU Ryzen with
// a ConnectX-5; mlnx-tools on the same host found IRQs 99 109-119 for
// enp1s0f0np0 and, with set_irq_affinity_cpulist.sh 7-11, assigned them to
// cores 7,8,9,10,11,7,8,9,10,11,7,8.
func rwCX5RyzenGrep(t *testing.T, dir string) {
	if _, err := ParseInterrupts(bytes.NewReader(rwBytes(t, dir, "output.txt"))); !errors.Is(err, ErrNoHeader) {
		t.Errorf("err = %v, want ErrNoHeader", err)
	}
	in, err := rwLines(t, dir, "output.txt", 12)
	if err != nil || len(in.Lines) != 15 {
		t.Fatalf("%d lines, %v", len(in.Lines), err)
	}
	rwCheckLines(t, in, []rwLine{
		{98, "IR-PCI-MSIX-0000:01:00.0", "0", "edge", []string{"mlx5_async0@pci:0000:01:00.0"}, 23274},
		{117, "IR-PCI-MSIX-0000:01:00.0", "10", "edge", []string{"mlx5_comp9@pci:0000:01:00.0"}, 7 + 651437},
		{102, "IR-PCI-MSIX-0000:01:00.1", "1", "edge", []string{"mlx5_comp0@pci:0000:01:00.1"}, 0},
	})
	want := []rwIRQ{{98, RoleControl, -1, DirUnknown}, {99, RoleQueue, 0, DirRXTX}}
	for q := 1; q <= 11; q++ {
		want = append(want, rwIRQ{108 + q, RoleQueue, q, DirRXTX})
	}
	dev := rwCheckNIC(t, in, "enp1s0f0np0", "0000:01:00.0", "", want)
	var cores []int
	for _, a := range RoundRobin(dev.IRQs, CPUList{7, 8, 9, 10, 11}).Assign {
		cores = append(cores, a.CPUs...)
	}
	if w := []int{7, 8, 9, 10, 11, 7, 8, 9, 10, 11, 7, 8}; !slices.Equal(cores, w) {
		t.Errorf("RoundRobin 7-11 = %v, want mlnx-tools' %v", cores, w)
	}
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 4224947, Busiest: 8, SharePct: 37.1, OK: true,
		Reasons: []string{"12 queue IRQs fired on 6 CPUs (3,7-11); busiest CPU8 took 37% of 4224947"},
	})
}

// rwAWSENA: a 4-vCPU EC2 node with three ENA interfaces.
func rwAWSENA(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if len(in.CPUs) != 4 || len(in.Lines) != 66 {
		t.Errorf("%d CPUs, %d lines", len(in.CPUs), len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{27, "PCI-MSI", "81920", "edge", []string{"ena-mgmnt@pci:0000:00:05.0"}, 5615 + 969},
		{28, "PCI-MSI", "81921", "edge", []string{"eth0-Tx-Rx-0"}, 1482671 + 35400719},
	})
	dev := rwCheckNIC(t, in, "eth0", "0000:00:05.0", "", []rwIRQ{
		{27, RoleControl, -1, DirUnknown}, {28, RoleQueue, 0, DirRXTX}, {29, RoleQueue, 1, DirRXTX},
		{30, RoleQueue, 2, DirRXTX}, {31, RoleQueue, 3, DirRXTX},
	})
	rwCheckNIC(t, in, "eth2", "0000:00:07.0", "", []rwIRQ{
		{52, RoleControl, -1, DirUnknown}, {53, RoleQueue, 0, DirRXTX}, {54, RoleQueue, 1, DirRXTX},
		{55, RoleQueue, 2, DirRXTX}, {56, RoleQueue, 3, DirRXTX},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 132160013, Busiest: 1, SharePct: 28.2, OK: true,
		Reasons: []string{"4 queue IRQs fired on 4 CPUs (0-3); busiest CPU1 took 28% of 132160013"},
	})
	if l, _ := in.ByLabel("PIW"); l.Description != "Posted-interrupt wakeup event" || len(l.Counts) != 4 {
		t.Errorf("PIW = %+v", l)
	}
}

// rwWSL2: WSL2's virtio devices behind the Hyper-V PCIe MSI controller;
// the page indented every line.
func rwWSL2(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if !slices.Equal(in.CPUs, []int{0, 1}) || len(in.Lines) != 29 {
		t.Errorf("CPUs %v, %d lines", in.CPUs, len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{24, "Hyper-V PCIe MSI", "2938026065920", "edge", []string{"virtio0-config"}, 1},
		{28, "Hyper-V PCIe MSI", "6801751801858", "edge", []string{"virtio1-requests.0"}, 10},
		{9, "IO-APIC", "9", "fasteoi", []string{"acpi"}, 1},
	})
	rwCheckNIC(t, in, "", "", "virtio0", []rwIRQ{{24, RoleControl, -1, DirUnknown}, {25, RoleQueue, -1, DirRXTX}})
	if l, _ := in.ByLabel("HYP"); !slices.Equal(l.Counts, []uint64{26775, 2010}) || l.Description != "Hypervisor callback interrupts" {
		t.Errorf("HYP = %+v", l)
	}
}

// rwXenARM64: Xen dom0 on arm64 (GICv3, ITS-MSI, Xen event channels).
func rwXenARM64(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if len(in.Lines) != 38 {
		t.Errorf("%d lines", len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{0, "xen-dyn", "", "Edge", []string{"xenbus"}, 92},
		{11, "GICv3", "27", "Level", []string{"arch_timer"}, 18084 + 11575},
		{15, "RC-Event", "0", "Level", []string{"LINK_DOWN"}, 0},
		{35, "xen-dyn", "", "Edge", []string{"hvc_console"}, 41},
		{37, "ITS-MSI", "524288", "Edge", []string{"nvme0q0"}, 17},
		{38, "GICv3", "176", "Level", []string{"sysmon-irq"}, 0},
		{42, "xen-dyn-lateeoi", "", "Edge", []string{"evtchn:xenstored"}, 0},
	})
	if l, _ := in.ByLabel("IPI3"); l.Description != "CPU stop (for crash dump) interrupts" || l.Total() != 0 {
		t.Errorf("IPI3 = %+v", l)
	}
	if l, ok := in.ByLabel("Err"); !ok || len(l.Counts) != 1 {
		t.Errorf("Err = %+v", l)
	}
}

// rwXenHVM: a Linux guest of QEMU's Xen emulation with an e1000e whose
// vectors are Xen PIRQs.
func rwXenHVM(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if len(in.Lines) != 25 {
		t.Errorf("%d lines", len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{1, "xen-pirq", "1", "ioapic-edge", []string{"i8042"}, 14},
		{9, "xen-pirq", "9", "ioapic-level", []string{"acpi"}, 0},
		{24, "xen-percpu", "", "virq", []string{"timer0"}, 9600},
		{36, "xen-dyn", "", "event", []string{"xenbus"}, 8},
		{37, "xen-pirq", "", "msi", []string{"ahci[0000:00:03.0]"}, 6046},
		{42, "xen-pirq", "", "msi-x", []string{"ens4-tx-1"}, 47},
	})
	dev := rwCheckNIC(t, in, "ens4", "", "", []rwIRQ{
		{38, RoleControl, -1, DirUnknown}, {39, RoleQueue, 0, DirRX}, {40, RoleQueue, 1, DirRX},
		{41, RoleQueue, 0, DirTX}, {42, RoleQueue, 1, DirTX},
	})
	// rx-0 (73) and tx-0 (32) on CPU1, rx-1 (14) and tx-1 (47) on CPU0.
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 166, Busiest: 1, SharePct: 63.3, Concentrated: true,
		Reasons: []string{"CPU1 took 63% of 166 queue interrupts, from 2 of 4 IRQs"},
	})
}

// rwRK3568: arm64 router board; RTL8125 vectors are named <netdev>-<n>
// with sparse n, the SoC GMAC's two lines are both named eth0.
func rwRK3568(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if len(in.Lines) != 16 {
		t.Errorf("%d lines", len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{13, "GICv3", "26", "Level", []string{"arch_timer"}, 6197 + 4234 + 4821 + 4771},
		{121, "ITS-MSI", "142606344", "Edge", []string{"PCIe PME"}, 0},
		{155, "ITS-MSI", "143130624", "Edge", []string{"eth2-0"}, 748},
	})
	dev := rwCheckNIC(t, in, "eth1", "", "", []rwIRQ{
		{123, RoleQueue, 0, DirRXTX}, {139, RoleQueue, 16, DirRXTX}, {141, RoleQueue, 18, DirRXTX}, {144, RoleQueue, 21, DirRXTX},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 105, Busiest: 1, SharePct: 90.5, OK: true,
		Reasons: []string{"3 queue IRQs fired on 3 CPUs (1-3); busiest CPU1 took 90% of 105"},
	})
	gmac := rwCheckNIC(t, in, "eth0", "", "", []rwIRQ{{58, RoleControl, -1, DirUnknown}, {59, RoleControl, -1, DirUnknown}})
	rwCheckVerdict(t, SinceBoot(gmac, in, nil, Thresholds{}), rwVerdict{
		Busiest: -1, Idle: true,
		Reasons: []string{"eth0 has 2 IRQs but none is a known queue vector (58 (eth0), 59 (eth0))"},
	})
}

// rwAzureMlx5Fixture: an Azure mlx5 VF under the Hyper-V PCIe MSI
// controller where CPU1 takes 98% of the completion interrupts: the case
// the verdict used to call "no queue IRQs".
func rwAzureMlx5Fixture(t *testing.T, dir string) {
	in, err := rwLines(t, dir, "output.txt", 2)
	if err != nil || len(in.Lines) != 3 {
		t.Fatalf("%d lines, %v", len(in.Lines), err)
	}
	rwCheckLines(t, in, []rwLine{
		{34, "Hyper-V PCIe MSI", "2701534461953", "edge", []string{"mlx5_comp0@pci:4ea0:00:02.0"}, 154 + 9690},
	})
	dev := rwCheckNIC(t, in, "", "4ea0:00:02.0", "", []rwIRQ{
		{33, RoleControl, -1, DirUnknown}, {34, RoleQueue, 0, DirRXTX}, {35, RoleQueue, 1, DirRXTX},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 9887, Busiest: 1, SharePct: 98.4, Concentrated: true,
		Reasons: []string{"2 queue IRQs fired, all mostly on CPU1 (98% of 9887)"},
	})
}

// rwAzureMANAFixture: MANA with its hardware channel on a 1-vCPU VM.
func rwAzureMANAFixture(t *testing.T, dir string) {
	in, err := rwLines(t, dir, "output.txt", 1)
	if err != nil || len(in.Lines) != 3 {
		t.Fatalf("%d lines, %v", len(in.Lines), err)
	}
	dev := rwCheckNIC(t, in, "", "7870:00:00.0", "", []rwIRQ{
		{32, RoleControl, -1, DirUnknown}, {33, RoleQueue, 0, DirRXTX}, {34, RoleQueue, 1, DirRXTX},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 5282 + 1627, Busiest: 0, SharePct: 100, Concentrated: true,
		Reasons: []string{"2 queue IRQs fired, all on CPU0"},
	})
	// Two CPU columns given for one-column lines: the lines are short,
	// not an error.
	if in2, err := rwLines(t, dir, "output.txt", 2); err != nil || len(in2.Lines[0].Counts) != 1 {
		t.Errorf("2 CPUs: %v, %+v", err, in2.Lines)
	}
}

// rwGVEFixture: gVNIC notification blocks, idle.
func rwGVEFixture(t *testing.T, dir string) {
	in, err := rwLines(t, dir, "output.txt", 2)
	if err != nil || len(in.Lines) != 3 {
		t.Fatalf("%d lines, %v", len(in.Lines), err)
	}
	rwCheckLines(t, in, []rwLine{
		{168, "PCI-MSIX-0000:00:08.0", "30", "edge", []string{"gve-ntfy-blk0@pci:0000:00:08.0"}, 0},
	})
	dev := rwCheckNIC(t, in, "", "0000:00:08.0", "", []rwIRQ{
		{168, RoleQueue, 0, DirRXTX}, {169, RoleQueue, 1, DirRXTX}, {170, RoleControl, -1, DirUnknown},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Busiest: -1, Idle: true,
		Reasons: []string{"0 queue interrupts, fewer than 100: too little traffic to judge"},
	})
	// One count too many for the CPU list given: a warning, the line kept.
	if in1, err := rwLines(t, dir, "output.txt", 1); !errors.Is(err, ErrParse) || len(in1.Lines) != 3 {
		t.Errorf("1 CPU: %v, %d lines", err, len(in1.Lines))
	}
}

// rwHyperVTabs: an excerpt retyped with tabs; IRQ 0 is the same MSI as
// IRQ 1 (same hwirq) and has no action.
func rwHyperVTabs(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if !slices.Equal(in.CPUs, []int{0, 1}) || len(in.Lines) != 2 {
		t.Fatalf("CPUs %v, %d lines", in.CPUs, len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{0, "Hyper-V PCIe MSI", "1073741824", "edge", nil, 2},
		{1, "Hyper-V PCIe MSI", "1073741824", "edge", []string{"nvme0q0"}, 69},
	})
}

// rwElided: a 40-CPU output whose author replaced columns and rows with
// "...": the columns shown keep their CPU ids, the "..." rows are reported.
func rwElided(t *testing.T, dir string) {
	in, err := ParseInterrupts(bytes.NewReader(rwBytes(t, dir, "output.txt")))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 6 || !strings.Contains(err.Error(), "line 10") {
		t.Errorf("err = %v, want ParseErrors for the '...' rows 6 and 10", err)
	}
	if !slices.Equal(in.CPUs, []int{0, 1, 38, 39}) || len(in.Lines) != 13 {
		t.Fatalf("CPUs %v, %d lines", in.CPUs, len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{0, "IR-IO-APIC", "2", "edge", []string{"timer"}, 33},
		{96, "IR-PCI-MSI", "9437189", "edge", []string{"mlx5_comp1@pci:0000:12:00.0"}, 68719 + 42920},
		{179, "IR-PCI-MSI", "9439275", "edge", []string{"mlx5_comp39@pci:0000:12:00.1"}, 5743 + 15415 + 1},
	})
	if l, _ := in.ByIRQ(179); l.Count(39) != 1 || l.Count(38) != 0 || l.Count(2) != 0 {
		t.Errorf("IRQ 179 per CPU = %v %v", l.CPUs, l.Counts)
	}
	if l, _ := in.ByLabel("CAL"); l.Count(39) != 430686 {
		t.Errorf("CAL = %v %v", l.CPUs, l.Counts)
	}
	rwCheckNIC(t, in, "", "0000:12:00.0", "", []rwIRQ{{96, RoleQueue, 1, DirRXTX}})
}

// rwI40EGuest: an X710 passed through to a guest on PCI segment 1; the
// stored part ends at IRQ 12.
func rwI40EGuest(t *testing.T, dir string) {
	in := rwParse(t, dir, "output.txt")
	if len(in.CPUs) != 4 || len(in.Lines) != 12 {
		t.Fatalf("CPUs %v, %d lines", in.CPUs, len(in.Lines))
	}
	rwCheckLines(t, in, []rwLine{
		{1, "IO-APIC", "17", "fasteoi", []string{"ACPI:Ged"}, 0},
		{9, "PCI-MSI", "134463488", "edge", []string{"i40e-0001:00:0f.0:misc"}, 2},
	})
	dev := rwCheckNIC(t, in, "enP1s15", "0001:00:0f.0", "", []rwIRQ{
		{9, RoleControl, -1, DirUnknown}, {10, RoleQueue, 0, DirRXTX}, {11, RoleQueue, 1, DirRXTX}, {12, RoleQueue, 2, DirRXTX},
	})
	rwCheckVerdict(t, SinceBoot(dev, in, nil, Thresholds{}), rwVerdict{
		Total: 119, Busiest: 0, SharePct: 100, OK: true,
		Reasons: []string{"1 queue IRQs fired on 1 CPUs (0); busiest CPU0 took 100% of 119"},
	})
}
