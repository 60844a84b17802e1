package kmsg

import (
	"bytes"
	"io"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const realworldDir = "../testdata/realworld/kmsg"

type findWant struct {
	kind   Kind
	name   string
	source string
	count  int
}

// firstWant is the first record of a file, read off the text.
type firstWant struct {
	format   Format
	priority int
	seq      int64 // -1: none
	micros   int64 // -1: none
	wall     string
	host     string
	source   Source
	text     string // prefix
}

type fileWant struct {
	records, warnings int
	first             firstWant
	findings          []findWant
}

var (
	labBookwormFindings = []findWant{
		{KindRDMA, "RDMA message", "rdma_rxe", 1},
		{KindLinkFlap, "link up", "eth0", 1},
		{KindLinkFlap, "link up", "veth0", 1},
		{KindRDMA, "RDMA message", "infiniband rxe0", 2},
		{KindRDMA, "RDMA message", "infiniband rxe1", 4},
	}
	labTrixieFindings = []findWant{
		{KindRDMA, "RDMA message", "rdma_rxe", 1},
		{KindRDMA, "RDMA message", "infiniband rxe0", 2},
		{KindRDMA, "RDMA message", "infiniband rxe1", 4},
	}
	bookwormFirst = "Linux version 6.1.0-50-amd64 (debian-kernel@lists.debian.org)"
	trixieFirst   = "Linux version 6.12.117+deb13-amd64 (debian-kernel@lists.debian.org)"
)

// realworldWant holds, per case folder and file, what the text says.
var realworldWant = map[string]map[string]fileWant{
	"arm-nas-16-mlx5-cx5-boot": {"output.txt": {records: 14,
		first: firstWant{FormatPlain, -1, -1, 10642917, "", "", Source{Driver: "mlx5_core", Device: "0004:01:00.0"}, "mlx5_core 0004:01:00.0: Adding to iommu group 29"}}},
	"azure-kernel-13-hv-netvsc-mlx4-indented": {"output.txt": {records: 17,
		first: firstWant{FormatPlain, -1, -1, 18827068, "", "", Source{Tag: "hv_vmbus"}, "hv_vmbus: registering driver hv_netvsc"}}},
	"cloud-init-539-mlx5-azure-short-precise": {"output.txt": {records: 2,
		first: firstWant{FormatSyslog, -1, -1, -1, "Aug 24 21:45:20", "", Source{Driver: "mlx5_core", Device: "7993:00:02.0"}, "mlx5_core 7993:00:02.0: handle_hca_cap:540:(pid 7)"}}},
	"csrutil-11-r8125-netdev-watchdog-6x": {"output.txt": {records: 14,
		first: firstWant{FormatPlain, -1, -1, 1356296930, "", "", Source{Driver: "r8125", Device: "0000:22:04.0", Netdev: "eth4"}, "r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5010 ms"},
		findings: []findWant{
			{KindTimeout, "transmit queue timeout", "r8125 0000:22:04.0 eth4", 4},
			{KindTimeout, "transmit queue timeout", "r8125 0000:22:01.0 eth1", 3},
		}}},
	"endlessm-548-alx-aer-corrected": {"output.txt": {records: 4,
		first: firstWant{FormatBare, -1, -1, -1, "", "", Source{Driver: "pcieport", Device: "0000:00:1d.0"}, "pcieport 0000:00:1d.0: AER: Corrected error received"},
		findings: []findWant{
			{KindPCIe, "PCIe/AER error", "pcieport 0000:00:1d.0", 1},
			{KindPCIe, "PCIe/AER error", "alx 0000:07:00.0", 3},
		}}},
	"host-6.18-veth-marker": {
		"dmesg-r-tail.txt": {records: 20,
			first: firstWant{FormatRaw, 6, -1, 5358477267, "", "", Source{Netdev: "to1"}, "to1: renamed from fltmpb"}},
		"kmsg-tail.txt": {records: 30,
			first: firstWant{FormatKmsg, 6, 499, 5346061363, "", "", Source{Netdev: "to0"}, "to0: renamed from fltmpb"}},
	},
	"lab-bookworm-rxe-injected": {
		"dmesg-r.txt": {records: 392, first: firstWant{FormatRaw, 5, -1, 0, "", "", Source{}, bookwormFirst}, findings: labBookwormFindings},
		"dmesg.txt":   {records: 392, first: firstWant{FormatPlain, -1, -1, 0, "", "", Source{}, bookwormFirst}, findings: labBookwormFindings},
		"dmesg-T.txt": {records: 392, first: firstWant{FormatCtime, -1, -1, -1, "Dec  1 00:54:37 2026", "", Source{}, bookwormFirst}, findings: labBookwormFindings},
		"kmsg.txt":    {records: 393, first: firstWant{FormatKmsg, 5, 0, 0, "", "", Source{}, bookwormFirst}, findings: labBookwormFindings},
	},
	"lab-trixie-rxe-injected": {
		"dmesg-r.txt": {records: 398, first: firstWant{FormatRaw, 5, -1, 0, "", "", Source{}, trixieFirst}, findings: labTrixieFindings},
		"dmesg.txt":   {records: 398, first: firstWant{FormatPlain, -1, -1, 0, "", "", Source{}, trixieFirst}, findings: labTrixieFindings},
		"dmesg-T.txt": {records: 398, first: firstWant{FormatCtime, -1, -1, -1, "Dec  1 00:54:19 2026", "", Source{}, trixieFirst}, findings: labTrixieFindings},
		"kmsg.txt":    {records: 399, first: firstWant{FormatKmsg, 5, 0, 0, "", "", Source{}, trixieFirst}, findings: labTrixieFindings},
	},
	"kvm-2023-amd-iommu-mlx5-cmd-eq-recover-wrapped": {"output.txt": {records: 7,
		first: firstWant{FormatPlain, -1, -1, 167759472, "", "", Source{Tag: "__common_interrupt"}, "__common_interrupt: 3.34 No irq handler for vector"},
		// Wrapped by the author: each piece is a record; the joined text
		// is checked in TestRealworldUnwrapped.
		findings: []findWant{
			{KindTimeout, "command completion lost", "mlx5_core 0000:00:02.0", 1},
			{KindTimeout, "command completion lost", "3122)", 1},
			{KindTimeout, "firmware command timeout", "", 1},
			{KindTimeout, "command completion lost", "", 1},
		}}},
	"lis-556-hv-netvsc-mlx4-vf-reset-syslog": {"output.txt": {records: 13,
		first:    firstWant{FormatSyslog, -1, -1, -1, "Jul 23 16:18:53", "", Source{Driver: "hv_netvsc", Device: "000d3a96-8b21-000d-3a96-8b21000d3a96", Netdev: "eth0"}, "hv_netvsc 000d3a96-8b21-000d-3a96-8b21000d3a96 eth0: Data path switched from VF: enP1p0s2"},
		findings: []findWant{{KindLinkFlap, "VF data path switched", "hv_netvsc 000d3a96-8b21-000d-3a96-8b21000d3a96 eth0", 2}}}},
	"lkml-2020-msi-regression-mlx5-eq-recover-dmesg-T-qp": {"output.txt": {records: 15,
		first: firstWant{FormatCtime, -1, -1, -1, "Oct 22 08:54:51 2020", "", Source{Tag: "DMAR"}, "DMAR: DRHD: handling fault status reg 2"},
		// Quoted-printable as mailed; decoded in TestRealworldUnwrapped.
		findings: []findWant{
			{KindLinkFlap, "link down", "mlx5_core 0000:42:00.1 eth4", 1},
			{KindLinkFlap, "link up", "mlx5_core 0000:42:00.1 eth4", 1},
			{KindTimeout, "command completion lost", "mlx5_core 0000:42:00.2", 1},
			{KindTimeout, "command completion lost", "", 1},
			{KindTimeout, "firmware command timeout", "mlx5_core 0000:42:00.2", 1},
		}}},
	"lkml-hv-pci-2023-mlx5-wait-fw-init-aborting": {"output.txt": {records: 17,
		first: firstWant{FormatPlain, -1, -1, 41938950, "", "", Source{Driver: "mlx5_core", Device: "468b:00:02.0"}, "mlx5_core 468b:00:02.0: no default pinctrl state"},
		findings: []findWant{
			{KindLinkFlap, "VF data path switched", "hv_netvsc 818fe754-b912-4445-af51-1f584812e3c9 eth0", 1},
			{KindFirmware, "firmware initialization slow", "mlx5_core 468b:00:02.0", 5},
			{KindFirmware, "firmware initialization timeout", "mlx5_core 468b:00:02.0", 1},
			{KindFirmware, "device health or firmware error", "mlx5_core 468b:00:02.0", 1},
		}}},
	"netdev-2020-s390-cx4lx-vf-hot-unplug-health": {"output.txt": {records: 34,
		first: firstWant{FormatPlain, -1, -1, 36447442, "", "", Source{Driver: "mlx5_core", Device: "0000:00:00.0"}, "mlx5_core 0000:00:00.0: poll_health:694:(pid 0): Fatal error 1 detected"},
		findings: []findWant{
			{KindFirmware, "device health or firmware error", "mlx5_core 0000:00:00.0", 12},
			{KindTimeout, "firmware command timeout", "mlx5_core 0000:00:00.0", 3},
			{KindRDMA, "RDMA message", "infiniband mlx5_0", 1},
		}}},
	"netdev-cx7-2025-mlx5-cmd-completion-after-timeout": {"output.txt": {records: 7,
		first: firstWant{FormatPlain, -1, -1, 257111349, "", "", Source{Driver: "mlx5_core", Device: "0000:56:00.0"}, "mlx5_core 0000:56:00.0: "},
		// format=flowed: a line ending in a space continues on the next;
		// joined in TestRealworldUnwrapped.
		findings: []findWant{
			{KindTimeout, "firmware command timeout", "", 3},
			{KindTimeout, "firmware command timeout", "mlx5_core 0000:56:00.0", 1},
			{KindTimeout, "firmware command timeout", "0)", 1},
		}}},
	"openbmc-2228-ftgmac100-netdev-watchdog": {"output.txt": {records: 15,
		first:    firstWant{FormatPlain, -1, -1, 438150000, "", "", Source{}, "------------[ cut here ]------------"},
		findings: []findWant{{KindTimeout, "transmit queue timeout", "ftgmac100 eth0", 1}}}},
	"openwrt-19765-mtk-watchdog-logread": {"output.txt": {records: 5,
		first:    firstWant{FormatSyslog, -1, -1, 1317557006117, "Aug 12 16:40:43 2025", "", Source{Driver: "mtk_soc_eth", Device: "1e100000.ethernet", Netdev: "eth0"}, "mtk_soc_eth 1e100000.ethernet eth0: NETDEV WATCHDOG: CPU: 1: transmit queue 3 timed out 3685740 ms"},
		findings: []findWant{{KindTimeout, "transmit queue timeout", "mtk_soc_eth 1e100000.ethernet eth0", 5}}}},
	"pfring-293-ixgbe-link-flap-syslog": {"output.txt": {records: 3,
		first: firstWant{FormatSyslog, -1, -1, 11314654843, "Nov 17 13:16:56", "", Source{Driver: "ixgbe", Device: "0000:08:00.0", Netdev: "eth11"}, "ixgbe 0000:08:00.0 eth11: NIC Link is Up 10 Gbps, Flow Control: RX"},
		findings: []findWant{
			{KindLinkFlap, "link up", "ixgbe 0000:08:00.0 eth11", 1},
			{KindLinkFlap, "link down", "ixgbe 0000:08:00.0 eth11", 1},
		}}},
	"pfring-780-i40e-journalctl": {"output.txt": {records: 13,
		first:    firstWant{FormatSyslog, -1, -1, -1, "Jan 31 10:13:36", "", Source{Driver: "i40e"}, "i40e: Intel(R) Ethernet Connection XL710 Network Driver - version 2.8.20-k"},
		findings: []findWant{{KindLinkFlap, "link up", "i40e 0000:19:00.0 eth0", 1}}}},
	"rpi-4485-bcmgenet-watchdog-queue3": {"output.txt": {records: 17,
		first:    firstWant{FormatPlain, -1, -1, 18953329, "", "", Source{Tag: "NETDEV WATCHDOG", Driver: "bcmgenet", Netdev: "eth0"}, "NETDEV WATCHDOG: eth0 (bcmgenet): transmit queue 3 timed out"},
		findings: []findWant{{KindTimeout, "transmit queue timeout", "bcmgenet eth0", 1}}}},
	"rr-3556-mlx5-manage-pages-timeout": {"output.txt": {records: 8,
		first:    firstWant{FormatPlain, -1, -1, 126411146, "", "", Source{Driver: "mlx5_core", Device: "0000:00:11.0"}, "mlx5_core 0000:00:11.0: 0000:00:11.0:wait_func:790:(pid 3851): MANAGE_PAGES(0x108) timeout."},
		findings: []findWant{{KindTimeout, "firmware command timeout", "mlx5_core 0000:00:11.0", 2}}}},
	"spdk-1184-rxe-bond-journal": {"output.txt": {records: 12,
		first: firstWant{FormatSyslog, -1, -1, -1, "Feb  6 16:10:07", "", Source{Driver: "infiniband", Device: "rxe0"}, "infiniband rxe0: set active"},
		findings: []findWant{
			{KindRDMA, "RDMA message", "infiniband rxe0", 2},
			{KindRDMA, "RDMA message", "rdma_rxe", 1},
			{KindLinkFlap, "link down", "ens1f0", 2},
			{KindLinkFlap, "link down", "bond0", 1},
			{KindLinkFlap, "link down", "ens1f1", 2},
		}}},
	"tinycore-9-mlx5-cx4lx-probe-failed": {"output.txt": {records: 6,
		first:    firstWant{FormatPlain, -1, -1, 12925245, "", "", Source{Driver: "mlx5_core", Device: "0000:03:00.0"}, "mlx5_core 0000:03:00.0: enabling device (0000 -> 0002)"},
		findings: []findWant{{KindFirmware, "device health or firmware error", "mlx5_core 0000:03:00.0", 2}}}},
	"ucx-7738-mlx5-create-dct-timeout-pdsh": {"output.txt": {records: 8,
		first:    firstWant{FormatPlain, -1, -1, 14280445220, "", "b1360", Source{Driver: "mlx5_core", Device: "0000:61:00.0"}, "mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: CREATE_DCT(0x710) No done completion"},
		findings: []findWant{{KindTimeout, "firmware command timeout", "mlx5_core 0000:61:00.0", 8}}}},
	"ustclug-86-e1000e-link-flap-dmesg-T": {"output.txt": {records: 17,
		first: firstWant{FormatCtime, -1, -1, -1, "Dec 25 20:12:49 2016", "", Source{Driver: "e1000e", Netdev: "eth1"}, "e1000e: eth1 NIC Link is Down"},
		findings: []findWant{
			{KindLinkFlap, "link down", "e1000e eth1", 6},
			{KindLinkFlap, "link up", "e1000e eth1", 7},
			{KindLinkFlap, "link down", "e1000e eth0", 2},
			{KindLinkFlap, "link up", "e1000e eth0", 2},
		}}},
}

func TestRealworld(t *testing.T) {
	dirs, err := os.ReadDir(realworldDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(realworldDir, d.Name(), "*.txt"))
			if _, err := os.Stat(filepath.Join(realworldDir, d.Name(), "source.json")); err != nil {
				t.Errorf("no source.json: %v", err)
			}
			wants, ok := realworldWant[d.Name()]
			if !ok {
				t.Fatalf("case folder %s has no entry in realworldWant", d.Name())
			}
			if len(files) != len(wants) {
				t.Errorf("%d .txt files, %d entries", len(files), len(wants))
			}
			for _, f := range files {
				want, ok := wants[filepath.Base(f)]
				if !ok {
					t.Errorf("%s has no entry", f)
					continue
				}
				checkFile(t, f, want)
			}
		})
	}
}

func checkFile(t *testing.T, path string, want fileWant) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseBytes(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(l.Records) != want.records || len(l.Warnings) != want.warnings {
		t.Errorf("%s: %d records, %d warnings (%v); want %d, %d", path, len(l.Records), len(l.Warnings), l.Warnings, want.records, want.warnings)
	}
	if len(l.Records) > 0 {
		checkFirst(t, path, l.Records[0], want.first)
	}
	if got := findings(l.Records); !slices.Equal(got, want.findings) {
		t.Errorf("%s: findings\n got %v\nwant %v", path, got, want.findings)
	}
}

// findings is Summarize(records) in the form the tables write it.
func findings(records []Record) []findWant {
	var got []findWant
	for _, f := range Summarize(records) {
		got = append(got, findWant{f.Kind, f.Name, f.Source.String(), f.Count})
	}
	return got
}

func checkFirst(t *testing.T, path string, r Record, w firstWant) {
	t.Helper()
	seq, micros := int64(-1), int64(-1)
	if r.HasSeq {
		seq = int64(r.Seq)
	}
	if r.HasTime {
		micros = r.Micros
	}
	wall := ""
	if !r.Wall.IsZero() {
		wall = r.Wall.Format("Jan _2 15:04:05")
		if r.Wall.Year() != 0 {
			wall += r.Wall.Format(" 2006")
		}
	}
	if r.Format != w.format || r.Priority != w.priority || seq != w.seq || micros != w.micros ||
		wall != w.wall || r.Host != w.host || r.Source != w.source || !strings.HasPrefix(r.Text, w.text) || r.Line < 1 {
		t.Errorf("%s: first record\n got %v pri %d seq %d µs %d wall %q host %q %+v %q (line %d)\nwant %v pri %d seq %d µs %d wall %q host %q %+v %q",
			path, r.Format, r.Priority, seq, micros, wall, r.Host, r.Source, r.Text, r.Line,
			w.format, w.priority, w.seq, w.micros, w.wall, w.host, w.source, w.text)
	}
}

// unflow joins the lines of a format=flowed mail (RFC 3676): a line
// ending in a space continues on the next.
func unflow(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(" \n"), []byte(" "))
}

// TestRealworldUnwrapped: the mailed cases with the mail's own wrapping or
// encoding undone read as the kernel printed them, each record whole.
func TestRealworldUnwrapped(t *testing.T) {
	read := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(realworldDir, dir, "output.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	qp, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(read("lkml-2020-msi-regression-mlx5-eq-recover-dmesg-T-qp"))))
	if err != nil {
		t.Fatal(err)
	}
	// The author wrapped at a space: a line not starting with "[" goes back
	// onto the record before it.
	kvm := read("kvm-2023-amd-iommu-mlx5-cmd-eq-recover-wrapped")
	var joined []string
	for i, line := range strings.Split(strings.TrimSuffix(string(kvm), "\n"), "\n") {
		if i > 0 && !strings.HasPrefix(line, "[") {
			joined[len(joined)-1] += " " + line
			continue
		}
		joined = append(joined, line)
	}
	for _, c := range []struct {
		name     string
		in       []byte
		records  int
		text     string // the mlx5 record that was cut
		findings []findWant
	}{
		{"flowed", unflow(read("netdev-cx7-2025-mlx5-cmd-completion-after-timeout")), 3,
			"mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).",
			[]findWant{{KindTimeout, "firmware command timeout", "mlx5_core 0000:56:00.0", 3}}},
		{"hard-wrapped", []byte(strings.Join(joined, "\n") + "\n"), 4,
			"mlx5_core 0000:00:02.0: wait_func_handle_exec_timeout:1113:(pid 3122): cmd[0]: CREATE_CQ(0x400) recovered after timeout",
			[]findWant{{KindTimeout, "command completion lost", "mlx5_core 0000:00:02.0", 2}}},
		{"quoted-printable", qp, 8,
			"mlx5_core 0000:42:00.2: wait_func_handle_exec_timeout:1051:(pid 3390): cmd0: CREATE_EQ(0\u00c3\u0097301) recovered after timeout",
			[]findWant{
				{KindLinkFlap, "link down", "mlx5_core 0000:42:00.1 eth4", 1},
				{KindLinkFlap, "link up", "mlx5_core 0000:42:00.1 eth4", 1},
				{KindTimeout, "command completion lost", "mlx5_core 0000:42:00.2", 2},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := ParseBytes(c.in)
			if err != nil || len(l.Records) != c.records || len(l.Warnings) != 0 {
				t.Fatalf("%d records, warnings %v, err %v; want %d", len(l.Records), l.Warnings, err, c.records)
			}
			if !slices.ContainsFunc(l.Records, func(r Record) bool { return r.Text == c.text }) {
				t.Errorf("no record %q", c.text)
			}
			if got := findings(l.Records); !slices.Equal(got, c.findings) {
				t.Errorf("findings\n got %v\nwant %v", got, c.findings)
			}
		})
	}
}
