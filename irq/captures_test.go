package irq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// capturesDir is the kernel-file check corpus: real captures of other
// projects with what a correct reader must find (cases.json). It is read in
// place and never copied into the project.
const capturesDir = "../../shared/reference/captures/kernel"

// captureCase is one entry of cases.json.
type captureCase struct {
	File   string                     `json:"file"`
	Source string                     `json:"source"`
	Expect map[string]json.RawMessage `json:"expect"`
}

// captureCases returns the cases whose file is in folder kind
// ("interrupts", "softirqs", "softnet", "stat"), skipping the test when the
// corpus is absent.
func captureCases(t *testing.T, kind string) []captureCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capturesDir, "cases.json"))
	if os.IsNotExist(err) {
		t.Skipf("check corpus %s absent", capturesDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var all []captureCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	var out []captureCase
	for _, c := range all {
		if strings.HasPrefix(c.File, kind+"/") {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s cases in cases.json", kind)
	}
	return out
}

func captureBytes(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capturesDir, file))
	if os.IsNotExist(err) {
		if _, derr := os.Stat(capturesDir); os.IsNotExist(derr) {
			t.Skipf("check corpus %s absent", capturesDir)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode unmarshals the expect field key of c into v.
func (c captureCase) decode(t *testing.T, key string, v any) {
	t.Helper()
	if err := json.Unmarshal(c.Expect[key], v); err != nil {
		t.Fatalf("%s: expect.%s: %v", c.File, key, err)
	}
}

// cpuListField reads an expect field that is a CPU list ("0-3").
func (c captureCase) cpuListField(t *testing.T, key string) []int {
	t.Helper()
	var s string
	c.decode(t, key, &s)
	l, err := ParseCPUList(s)
	if err != nil {
		t.Fatalf("%s: expect.%s: %v", c.File, key, err)
	}
	return l
}

// captureNIC is what a test must know of a capture's NIC that the expect
// fields do not say: what sysfs would give (PCI function, virtio device)
// and the NUMA node's CPUs, from the case's device description.
type captureNIC struct {
	netdev, pci, virtio string
	node                CPUList
}

var captureNICs = map[string]captureNIC{
	"001": {pci: "0000:01:00.0"},
	"002": {netdev: "eth2", pci: "0000:07:00.0", node: CPUList{0, 2, 4, 6, 8, 10}},
	"003": {netdev: "eth6", pci: "0000:04:00.0"},
	"004": {netdev: "eth0", pci: "0000:01:00.0"},
	"005": {netdev: "eth0"},
	"006": {netdev: "eth1", node: CPUList{6, 7, 8, 9, 10, 11}},
	"007": {netdev: "eth4"},
	"008": {netdev: "eth4"},
	"009": {netdev: "eth2"},
	"012": {virtio: "virtio0"},
}

func captureID(file string) string { return filepath.Base(file)[:3] }

func roleIRQs(irqs []QueueIRQ, role Role) []int {
	var out []int
	for _, q := range irqs {
		if q.Role == role {
			out = append(out, q.IRQ)
		}
	}
	return out
}

func ints(t *testing.T, c captureCase, key string) []int {
	var v []int
	c.decode(t, key, &v)
	return v
}

// TestCapturesInterrupts asserts every expect field of the interrupts
// captures; a field the test does not know fails it, so that none is
// left unchecked.
func TestCapturesInterrupts(t *testing.T) {
	parsed := map[string]Interrupts{}
	for _, c := range captureCases(t, "interrupts") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			in, err := ParseInterrupts(bytes.NewReader(captureBytes(t, c.File)))
			if err != nil {
				t.Fatalf("ParseInterrupts: %v", err)
			}
			parsed[captureID(c.File)] = in
			nic := captureNICs[captureID(c.File)]
			if p, ok := c.Expect["netdev_pci"]; ok {
				if err := json.Unmarshal(p, &nic.pci); err != nil {
					t.Fatal(err)
				}
			}
			if n, ok := c.Expect["netdev"]; ok {
				if err := json.Unmarshal(n, &nic.netdev); err != nil {
					t.Fatal(err)
				}
			}
			irqs, _ := matchIRQs(in, nic.netdev, nic.pci, nic.virtio, nil, nil)
			dev := Netdev{Name: nic.netdev, PCI: nic.pci, NUMANode: -1, IRQs: irqs}
			for key := range c.Expect {
				checkInterruptsField(t, c, key, in, dev, nic, parsed)
			}
		})
	}
}

func checkInterruptsField(t *testing.T, c captureCase, key string, in Interrupts, dev Netdev, nic captureNIC, parsed map[string]Interrupts) {
	t.Helper()
	eq := func(what string, want, got any) {
		t.Helper()
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: %s = %v, want %v", key, what, got, want)
		}
	}
	switch key {
	case "netdev", "netdev_pci", "names", "source":
		// Inputs of the match (above) and prose; the roles they name
		// are asserted by the IRQ lists.
	case "cpus":
		eq("CPUs", c.cpuListField(t, key), in.CPUs)
	case "cpu_ids":
		eq("CPUs", ints(t, c, key), in.CPUs)
	case "queue_irqs":
		eq(dev.Name+" queue IRQs", ints(t, c, key), roleIRQs(dev.IRQs, RoleQueue))
	case "control_irqs":
		eq(dev.Name+" control IRQs", ints(t, c, key), roleIRQs(dev.IRQs, RoleControl))
	case "mlx4_core_completion_eqs":
		eq(dev.Name+" core EQ IRQs", ints(t, c, key), roleIRQs(dev.IRQs, RoleCoreEQ))
	case "eth7_queue_irqs":
		irqs, _ := matchIRQs(in, "eth7", nic.pci, "", nil, nil)
		eq("eth7 queue IRQs", ints(t, c, key), roleIRQs(irqs, RoleQueue))
	case "not_a_queue":
		var m map[string]string
		c.decode(t, key, &m)
		for irq, desc := range m {
			n, _ := strconv.Atoi(irq)
			q := findIRQ(dev.IRQs, n)
			if q.Role == RoleQueue || q.IRQ != n || !strings.HasPrefix(desc, q.Name) {
				t.Errorf("IRQ %s (%s) = %+v, want a known non-queue vector", irq, desc, q)
			}
		}
	case "ERR_row":
		var want uint64
		c.decode(t, key, &want)
		l, _ := in.ByLabel("ERR")
		eq("ERR total", want, l.Total())
	case "directions":
		checkDirections(t, c, dev)
	case "since_boot":
		checkSinceBoot(t, c, dev)
	case "oracle", "bynode0_expected_cpus":
		checkOracle(t, c, key, dev, nic)
	case "note":
		checkNote(t, c, in, dev)
	case "virtio0":
		var v struct{ Queue, Control []int }
		c.decode(t, key, &v)
		eq("virtio0 queues", v.Queue, roleIRQs(dev.IRQs, RoleQueue))
		eq("virtio0 control", v.Control, roleIRQs(dev.IRQs, RoleControl))
	case "delta_from_007_eth4", "total", "verdict":
		checkDelta007(t, c, key, parsed)
	default:
		t.Errorf("expect field %q is not asserted by this test", key)
	}
}

func findIRQ(irqs []QueueIRQ, n int) QueueIRQ {
	for _, q := range irqs {
		if q.IRQ == n {
			return q
		}
	}
	return QueueIRQ{IRQ: -1}
}

// checkDirections: {"88": "rx", "91": "tx+rx (eth0-tx-0-rx-3)"}.
func checkDirections(t *testing.T, c captureCase, dev Netdev) {
	var m map[string]string
	c.decode(t, "directions", &m)
	for irq, d := range m {
		n, _ := strconv.Atoi(irq)
		want := map[string]Direction{"rx": DirRX, "tx": DirTX, "tx+rx": DirRXTX}[strings.Fields(d)[0]]
		if q := findIRQ(dev.IRQs, n); q.Direction != want || q.Role != RoleQueue {
			t.Errorf("IRQ %d (%s) = %+v, want queue direction %q", n, d, q, want)
		}
	}
}

// checkSinceBoot: "queue IRQs 97% on CPU0 -> concentrated".
func checkSinceBoot(t *testing.T, c captureCase, dev Netdev) {
	var s string
	c.decode(t, "since_boot", &s)
	m := regexp.MustCompile(`(\d+)% on CPU(\d+) -> (\w+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("since_boot %q: unknown form", s)
	}
	in, _ := ParseInterrupts(bytes.NewReader(captureBytes(t, c.File)))
	d := SinceBoot(dev, in, nil, Thresholds{})
	pct, _ := strconv.Atoi(m[1])
	cpu, _ := strconv.Atoi(m[2])
	if d.Busiest != cpu || int(math.Round(100*d.BusiestShare)) != pct || d.Concentrated != (m[3] == "concentrated") {
		t.Errorf("SinceBoot: busiest CPU%d %.1f%% concentrated=%v (%v), want %s", d.Busiest, 100*d.BusiestShare, d.Concentrated, d.Reasons, s)
	}
}

// checkOracle compares RoundRobin over the node's CPUs with what the
// source's tool did: "IRQ 75..82 -> CPU 6,7,8,9,10,11,6,7", "binds
// mlx5_comp0..3 (IRQ 30..33) to CPU0..3", or a CPU list.
func checkOracle(t *testing.T, c captureCase, key string, dev Netdev, nic captureNIC) {
	var want []int
	if key == "bynode0_expected_cpus" {
		want = ints(t, c, key)
	} else {
		var s string
		c.decode(t, key, &s)
		if m := regexp.MustCompile(`-> CPU ([\d,]+)`).FindStringSubmatch(s); m != nil {
			for f := range strings.SplitSeq(m[1], ",") {
				n, _ := strconv.Atoi(f)
				want = append(want, n)
			}
		} else if m := regexp.MustCompile(`to CPU(\d+)\.\.(\d+)`).FindStringSubmatch(s); m != nil {
			a, _ := strconv.Atoi(m[1])
			z, _ := strconv.Atoi(m[2])
			want = seq(a, z)
		} else {
			t.Fatalf("oracle %q: unknown form", s)
		}
	}
	cpus := nic.node
	if cpus == nil {
		in, _ := ParseInterrupts(bytes.NewReader(captureBytes(t, c.File)))
		cpus = in.CPUs
	}
	var got []int
	for _, a := range RoundRobin(dev.IRQs, cpus).Assign {
		got = append(got, a.CPUs...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: RoundRobin over %s gives %v, want %v", key, cpus, got, want)
	}
}

// checkNote asserts the notes that state a fact of the file.
func checkNote(t *testing.T, c captureCase, in Interrupts, dev Netdev) {
	var s string
	c.decode(t, "note", &s)
	if m := regexp.MustCompile(`^(\S+) has (\d+) on CPU(\d+)`).FindStringSubmatch(s); m != nil {
		want, _ := strconv.ParseUint(m[2], 10, 64)
		cpu, _ := strconv.Atoi(m[3])
		for _, l := range in.Lines {
			if l.Name() == m[1] && l.Count(cpu) != want {
				t.Errorf("note %q: %s has %d on CPU%d", s, m[1], l.Count(cpu), cpu)
			}
		}
		return
	}
	if strings.HasPrefix(s, "control vector printed after the queues") {
		ctl, q := roleIRQs(dev.IRQs, RoleControl), roleIRQs(dev.IRQs, RoleQueue)
		if len(ctl) != 1 || len(q) == 0 || ctl[0] < slices.Max(q) {
			t.Errorf("note %q: control %v, queues %v", s, ctl, q)
		}
		return
	}
	t.Errorf("note %q is not asserted", s)
}

// checkDelta007 asserts the fifth sample's growth over the first (008
// against 007): per IRQ and CPU, the total and the verdict.
func checkDelta007(t *testing.T, c captureCase, key string, parsed map[string]Interrupts) {
	before, ok := parsed["007"]
	if !ok {
		t.Fatal("007 not parsed before 008")
	}
	after, _ := ParseInterrupts(bytes.NewReader(captureBytes(t, c.File)))
	irqs, _ := matchIRQs(after, "eth4", "", "", nil, nil)
	d := Distribute(Netdev{Name: "eth4", IRQs: irqs}, before, after, nil, Thresholds{})
	switch key {
	case "delta_from_007_eth4":
		var m map[string]map[string]uint64
		c.decode(t, key, &m)
		for irq, per := range m {
			n, _ := strconv.Atoi(irq)
			for _, a := range d.PerIRQ {
				if a.IRQ != n {
					continue
				}
				for cpu, want := range per {
					k, _ := strconv.Atoi(strings.TrimPrefix(cpu, "cpu"))
					if len(a.CPUs) != 1 || a.CPUs[0] != (CPUCount{CPU: k, Count: want}) {
						t.Errorf("IRQ %d grew by %v, want only %s %d", n, a.CPUs, cpu, want)
					}
				}
			}
		}
	case "total":
		var want uint64
		c.decode(t, key, &want)
		if d.Total != want {
			t.Errorf("total = %d, want %d", d.Total, want)
		}
	case "verdict":
		var s string
		c.decode(t, key, &s)
		m := regexp.MustCompile(`^spread, one queue per CPU, busiest CPU(\d+) (\d+)%$`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("verdict %q: unknown form", s)
		}
		cpu, _ := strconv.Atoi(m[1])
		pct, _ := strconv.Atoi(m[2])
		if !d.OK || d.Concentrated || len(d.CPUsUsed) != len(d.PerIRQ) || d.Busiest != cpu || int(math.Round(100*d.BusiestShare)) != pct {
			t.Errorf("verdict %+v, want %s", d, s)
		}
	}
}

func TestCapturesSoftirqs(t *testing.T) {
	for _, c := range captureCases(t, "softirqs") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			s, err := ParseSoftirqs(bytes.NewReader(captureBytes(t, c.File)))
			if err != nil {
				t.Fatal(err)
			}
			for key := range c.Expect {
				switch key {
				case "cpus":
					if want := c.cpuListField(t, key); !slices.Equal(s.CPUs, want) {
						t.Errorf("CPUs = %v, want %v", s.CPUs, want)
					}
				case "NET_RX":
					var want []uint64
					c.decode(t, key, &want)
					if !slices.Equal(s.Counts["NET_RX"], want) {
						t.Errorf("NET_RX = %v, want %v", s.Counts["NET_RX"], want)
					}
				default:
					t.Errorf("expect field %q is not asserted", key)
				}
			}
		})
	}
}

func TestCapturesStat(t *testing.T) {
	for _, c := range captureCases(t, "stat") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			s, err := ParseStat(bytes.NewReader(captureBytes(t, c.File)))
			if err != nil {
				t.Fatal(err)
			}
			for key := range c.Expect {
				if key != "cpu_ids" {
					t.Errorf("expect field %q is not asserted", key)
					continue
				}
				var got []int
				for _, x := range s.CPUs {
					got = append(got, x.CPU)
				}
				if want := ints(t, c, key); !slices.Equal(got, want) {
					t.Errorf("cpu ids = %v, want %v", got, want)
				}
			}
		})
	}
}

// TestCapturesSoftnet maps rows to CPUs: by the id column where the
// kernel prints one, else through the online CPUs, which for the sysstat
// tree come from its /proc/stat (CPU 6 offline).
func TestCapturesSoftnet(t *testing.T) {
	st, err := ParseStat(bytes.NewReader(captureBytes(t, "stat/001-sysstat-root3-cpu6-offline.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var online []int
	for _, x := range st.CPUs {
		online = append(online, x.CPU)
	}
	for _, c := range captureCases(t, "softnet") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			var cpus []int
			if strings.Contains(c.File, "sysstat-root3") {
				cpus = online
			}
			rows, err := ParseSoftnetOnline(bytes.NewReader(captureBytes(t, c.File)), cpus)
			if err != nil {
				t.Fatal(err)
			}
			for key := range c.Expect {
				checkSoftnetField(t, c, key, rows)
			}
		})
	}
}

func checkSoftnetField(t *testing.T, c captureCase, key string, rows []SoftnetStat) {
	t.Helper()
	switch key {
	case "rows":
		var n int
		c.decode(t, key, &n)
		if len(rows) != n {
			t.Errorf("%d rows, want %d", len(rows), n)
		}
	case "columns":
		var n int
		c.decode(t, key, &n)
		for _, r := range rows {
			if r.Columns != n {
				t.Errorf("CPU %d: %d columns, want %d", r.CPU, r.Columns, n)
			}
		}
	case "cpu_ids":
		var got []int
		for _, r := range rows {
			got = append(got, r.CPU)
		}
		if want := ints(t, c, key); !slices.Equal(got, want) {
			t.Errorf("CPUs = %v, want %v", got, want)
		}
	case "row2_time_squeeze":
		var s string
		c.decode(t, key, &s)
		want, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if len(rows) < 3 || rows[2].TimeSqueeze != want {
			t.Errorf("row 2 time_squeeze, want %#x", want)
		}
	default:
		t.Errorf("expect field %q is not asserted", key)
	}
}

// TestCapturesFSSoftnet: Root.Softnet maps the rows of an 11-column
// softnet_stat through its /sys's online CPU list. The tree is built in a
// temporary folder from the sysstat capture (CPU 6 offline in its
// /proc/stat).
func TestCapturesFSSoftnet(t *testing.T) {
	captureCases(t, "softnet") // skips without the corpus
	st, err := ParseStat(bytes.NewReader(captureBytes(t, "stat/001-sysstat-root3-cpu6-offline.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var online CPUList
	for _, x := range st.CPUs {
		online = append(online, x.CPU)
	}
	root := t.TempDir()
	for p, b := range map[string][]byte{
		"proc/net/softnet_stat":         captureBytes(t, "softnet/005-sysstat-root3-11col.txt"),
		"sys/devices/system/cpu/online": []byte(online.String() + "\n"),
	} {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := Root(sysroot.ProcSys(filepath.Join(root, "proc"), filepath.Join(root, "sys"))).Softnet()
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range rows {
		got = append(got, r.CPU)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("Root.Softnet CPUs = %v, want %v (online %s)", got, want, online)
	}
	if rows[6].Processed != 0x4958 {
		t.Errorf("CPU 7 processed = %#x, want 0x4958 (the last row)", rows[6].Processed)
	}
}
