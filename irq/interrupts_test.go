package irq

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustInterrupts(t testing.TB, p string) Interrupts {
	t.Helper()
	in, err := ParseInterrupts(bytes.NewReader(readFixture(t, p)))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return in
}

// TestParseInterruptsCaptured checks lines of the real captures, one of
// each kind, and that every line of each capture parsed.
func TestParseInterruptsCaptured(t *testing.T) {
	four := []int{0, 1, 2, 3}
	tests := []struct {
		file  string
		cpus  []int
		lines int
		want  []Interrupt
	}{
		{"bookworm/proc/interrupts", four, 32, []Interrupt{
			{Label: "0", IRQ: 0, CPUs: four, Counts: []uint64{98, 0, 0, 0}, Chip: "IO-APIC", HWIRQ: "2", Type: "edge", Actions: []string{"timer"}},
			{Label: "9", IRQ: 9, CPUs: four, Counts: []uint64{0, 0, 0, 0}, Chip: "IO-APIC", HWIRQ: "9", Type: "fasteoi", Actions: []string{"acpi"}},
			// 6.1 shows MSI-X vectors as PCI-MSI with a large hwirq.
			{Label: "27", IRQ: 27, CPUs: four, Counts: []uint64{0, 0, 0, 0}, Chip: "PCI-MSI", HWIRQ: "49153", Type: "edge", Actions: []string{"virtio1-input.0"}},
			{Label: "LOC", IRQ: -1, CPUs: four, Counts: []uint64{1278, 2466, 2321, 2499}, Description: "Local timer interrupts"},
			{Label: "ERR", IRQ: -1, CPUs: []int{0}, Counts: []uint64{0}},
		}},
		{"trixie/traffic/after/proc/interrupts", four, 32, []Interrupt{
			{Label: "27", IRQ: 27, CPUs: four, Counts: []uint64{0, 231, 0, 0}, Chip: "PCI-MSIX-0000:00:03.0", HWIRQ: "1", Type: "edge", Actions: []string{"virtio1-input.0"}},
			{Label: "MIS", IRQ: -1, CPUs: []int{0}, Counts: []uint64{0}},
		}},
		{"host/proc/interrupts", []int{0, 1}, 0, []Interrupt{
			{Label: "36", IRQ: 36, CPUs: []int{0, 1}, Counts: []uint64{0, 402924}, Chip: "PCI-MSIX-0000:00:02.0", HWIRQ: "1", Type: "edge", Actions: []string{"virtio1-req.0"}},
		}},
	}
	for _, tt := range tests {
		in := mustInterrupts(t, tt.file)
		if diff := cmp.Diff(tt.cpus, in.CPUs); diff != "" {
			t.Errorf("%s CPUs (-want +got):\n%s", tt.file, diff)
		}
		nlines := strings.Count(string(readFixture(t, tt.file)), "\n") - 1
		if len(in.Lines) != nlines {
			t.Errorf("%s: %d lines parsed, file has %d", tt.file, len(in.Lines), nlines)
		}
		for _, w := range tt.want {
			got, ok := in.ByLabel(w.Label)
			if !ok {
				t.Errorf("%s: no line %s", tt.file, w.Label)
				continue
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("%s line %s (-want +got):\n%s", tt.file, w.Label, diff)
			}
		}
	}
}

// TestParseInterruptsOdd parses every odd line the kernel (or a broken
// file) can show, without a panic, keeping all lines but the one without
// a colon.
func TestParseInterruptsOdd(t *testing.T) {
	in, err := ParseInterrupts(bytes.NewReader(readFixture(t, "odd/interrupts")))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 13 || pe.Text != "this line has no colon" || !errors.Is(err, ErrParse) {
		t.Errorf("err = %v, want a ParseError for line 13", err)
	}
	cpus := []int{0, 1, 3}
	want := Interrupts{CPUs: cpus, Lines: []Interrupt{
		{Label: "0", IRQ: 0, CPUs: cpus, Counts: []uint64{41, 0, 0}, Chip: "IO-APIC", HWIRQ: "2", Type: "edge", Actions: []string{"timer"}},
		{Label: "7", IRQ: 7, CPUs: cpus[:2], Counts: []uint64{0, 0}},
		{Label: "9", IRQ: 9, CPUs: cpus, Counts: []uint64{3, 0, 0}, HWIRQ: "9", Type: "fasteoi", Actions: []string{"acpi"}},
		{Label: "16", IRQ: 16, CPUs: cpus, Counts: []uint64{100, 200, 0}, Chip: "IO-APIC", HWIRQ: "16", Type: "fasteoi", Actions: []string{"ehci_hcd:usb1", "uhci_hcd:usb2"}},
		{Label: "17", IRQ: 17, CPUs: cpus[:2], Counts: []uint64{5, 6}},
		{Label: "18", IRQ: 18, CPUs: cpus, Counts: []uint64{1, 2, 3}, Chip: "None", Actions: []string{"dummy"}},
		{Label: "19", IRQ: 19, CPUs: cpus, Counts: []uint64{1, 2, 3}, Chip: "IO-APIC", Type: "edge", Actions: []string{"rtc0"}},
		{Label: "27", IRQ: 27, CPUs: cpus, Counts: []uint64{0, 0, 0}, Chip: "GICv3", HWIRQ: "27", Type: "Level", Actions: []string{"arch_timer"}},
		{Label: "98", IRQ: 98, CPUs: cpus, Counts: []uint64{1234, 0, 0}, Chip: "IR-PCI-MSI", Type: "edge", Actions: []string{"mlx5_comp0@pci:0000:04:00.0"}},
		{Label: "99", IRQ: 99, CPUs: cpus, Counts: []uint64{0, 4321, 0}, Chip: "PCI-MSI", Type: "edge", Actions: []string{"eth0-TxRx-0"}},
		{Label: "100", IRQ: 100, CPUs: cpus, Counts: []uint64{0, 0, 0}, Chip: "IR-PCI-MSI"},
		{Label: "IPI0", IRQ: -1, CPUs: cpus, Counts: []uint64{10, 20, 30}, Description: "Rescheduling interrupts"},
		{Label: "NMI", IRQ: -1, CPUs: cpus, Counts: []uint64{0, 0, 0}, Description: "Non-maskable interrupts"},
		{Label: "ERR", IRQ: -1, CPUs: cpus[:1], Counts: []uint64{7}},
		{Label: "MIS", IRQ: -1, CPUs: cpus[:1], Counts: []uint64{0}},
	}}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := in.Lines[3].Name(); got != "ehci_hcd:usb1, uhci_hcd:usb2" {
		t.Errorf("Name() = %q", got)
	}
	if c := in.Lines[0].Count(3); c != 0 {
		t.Errorf("Count(3) = %d", c)
	}
	if c := in.Lines[11].Count(3); c != 30 {
		t.Errorf("IPI0 Count(3) = %d, want 30 (CPU3 is the third column)", c)
	}
}

func TestParseInterruptsMlx5(t *testing.T) {
	in := mustInterrupts(t, "mlx5-2node/proc/interrupts")
	if len(in.CPUs) != 96 || in.CPUs[95] != 95 {
		t.Fatalf("CPUs = %v", in.CPUs)
	}
	l, ok := in.ByIRQ(120)
	if !ok {
		t.Fatal("no IRQ 120")
	}
	if l.Chip != "IR-PCI-MSIX-0000:af:00.0" || l.HWIRQ != "0" || l.Type != "edge" || l.Name() != "mlx5_async0@pci:0000:af:00.0" || l.Total() != 5321 || l.Count(24) != 5321 {
		t.Errorf("IRQ 120 = %+v", l)
	}
	if _, ok := in.ByIRQ(999); ok {
		t.Error("ByIRQ(999) found a line")
	}
}

func TestParseInterruptsErrors(t *testing.T) {
	for _, in := range []string{"", "\n\n", "  0: 1 2 IO-APIC\n", "CPU0 CPUx\n"} {
		_, err := ParseInterrupts(strings.NewReader(in))
		if !errors.Is(err, ErrParse) {
			t.Errorf("ParseInterrupts(%q) err = %v, want ErrParse", in, err)
		}
	}
}

func TestDelta(t *testing.T) {
	before := mustInterrupts(t, "trixie/traffic/before/proc/interrupts")
	after := mustInterrupts(t, "trixie/traffic/after/proc/interrupts")
	byLabel := map[string]InterruptDelta{}
	for _, d := range after.Sub(before) {
		byLabel[d.Label] = d
	}
	want := InterruptDelta{Label: "28", IRQ: 28, Actions: []string{"virtio1-output.0"}, CPUs: []int{0, 1, 2, 3}, Counts: []uint64{0, 0, 496, 0}}
	if diff := cmp.Diff(want, byLabel["28"]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := byLabel["30"].Total(); got != 301 {
		t.Errorf("IRQ 30 delta = %d, want 301", got)
	}
	if got := byLabel["LOC"].Count(0); got != 15115-14647 {
		t.Errorf("LOC CPU0 delta = %d", got)
	}
}

func TestCounterDelta(t *testing.T) {
	tests := []struct{ b, a, want uint64 }{
		{5, 9, 4},
		{math.MaxUint32 - 1, 3, 5}, // a 32-bit wrap
		{math.MaxUint32 + 10, 3, 0},
		{0, 0, 0},
	}
	for _, tt := range tests {
		if got := counterDelta(tt.b, tt.a); got != tt.want {
			t.Errorf("counterDelta(%d, %d) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestDeltaCPUHotplug: a CPU that disappears between samples is left out.
func TestDeltaCPUHotplug(t *testing.T) {
	b, _ := ParseInterrupts(strings.NewReader("   CPU0 CPU1 CPU2\n 5: 10 20 30 IO-APIC 5-edge x\n"))
	a, _ := ParseInterrupts(strings.NewReader("   CPU0 CPU2\n 5: 15 40 IO-APIC 5-edge x\n 6: 1 1 IO-APIC 6-edge y\n"))
	want := []InterruptDelta{{Label: "5", IRQ: 5, Actions: []string{"x"}, CPUs: []int{0, 2}, Counts: []uint64{5, 10}}}
	if diff := cmp.Diff(want, a.Sub(b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzParseInterrupts(f *testing.F) {
	f.Add(readFixture(f, "odd/interrupts"))
	f.Add(readFixture(f, "bookworm/proc/interrupts"))
	f.Add(readFixture(f, "trixie/proc/interrupts"))
	f.Add(genInterrupts(8, 4))
	f.Add([]byte("CPU0\n0:\n:\n 1: 99999999999999999999999 x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, _ := ParseInterrupts(bytes.NewReader(b))
		for _, l := range in.Lines {
			if len(l.CPUs) != len(l.Counts) || len(l.Counts) > len(in.CPUs) {
				t.Fatalf("line %q: %d CPUs, %d counts, header %d", l.Label, len(l.CPUs), len(l.Counts), len(in.CPUs))
			}
			_ = l.Total()
		}
		_ = in.Sub(in)
	})
}

// FuzzParseInterruptLines feeds headerless and headed text with a CPU
// list, seeded from the real-world corpus.
func FuzzParseInterruptLines(f *testing.F) {
	for _, p := range []string{"interrupts-azure-mana-grep/before.txt", "interrupts-cx5-ryzen-grep/output.txt", "interrupts-xen-hvm-e1000e/output.txt", "interrupts-xen-arm64-vck190/output.txt"} {
		b, err := os.ReadFile(filepath.Join(realworldDir, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(4))
	}
	f.Add([]byte(" 1: 2 3 4 5 x 6-edge\n@:\n"), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		in, _ := ParseInterruptLines(bytes.NewReader(b), seq(0, int(n)-1))
		for _, l := range in.Lines {
			if len(l.CPUs) != len(l.Counts) || len(l.Counts) > len(in.CPUs) {
				t.Fatalf("line %q: %d CPUs, %d counts, %d columns", l.Label, len(l.CPUs), len(l.Counts), len(in.CPUs))
			}
		}
	})
}

func BenchmarkParseInterrupts(b *testing.B) {
	data := genInterrupts(256, 500)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		in, err := ParseInterrupts(bytes.NewReader(data))
		if err != nil || len(in.Lines) != 507 {
			b.Fatal(err, len(in.Lines))
		}
	}
}

// BenchmarkParseInterruptLines is BenchmarkParseInterrupts on the same
// lines without the header, as grep prints them.
func BenchmarkParseInterruptLines(b *testing.B) {
	data := genInterrupts(256, 500)
	data = data[bytes.IndexByte(data, '\n')+1:]
	cpus := seq(0, 255)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		in, err := ParseInterruptLines(bytes.NewReader(data), cpus)
		if err != nil || len(in.Lines) != 507 {
			b.Fatal(err, len(in.Lines))
		}
	}
}
