package irq

import (
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// Interrupts is /proc/interrupts: one Interrupt per line, in file order.
type Interrupts struct {
	// CPUs holds the CPU id of each count column, from the header. The
	// kernel prints online CPUs only, so ids can have gaps ("CPU0 CPU2").
	CPUs []int
	// Lines holds numbered IRQs and the architecture's named rows (NMI,
	// LOC, ERR, ...).
	Lines []Interrupt
}

// Interrupt is one line of /proc/interrupts.
type Interrupt struct {
	// Label is what precedes the colon: "38", "NMI", "ERR".
	Label string
	// IRQ is the IRQ number, or -1 for named rows.
	IRQ int
	// CPUs and Counts are parallel: Counts[i] interrupts were handled on
	// CPU CPUs[i] since boot. Both are shorter than the header when the
	// kernel printed fewer counts (ERR and MIS print one total). CPUs
	// shares its array with Interrupts.CPUs; do not modify it.
	CPUs   []int
	Counts []uint64
	// Chip is the interrupt controller as the kernel names it, spaces
	// included: "IO-APIC", "PCI-MSI", "PCI-MSIX-0000:00:03.0",
	// "IR-PCI-MSIX-0000:3b:00.0", "Hyper-V PCIe MSI", "ITS-MSI", "GICv3",
	// "xen-pirq"; "" if missing.
	Chip string
	// HWIRQ is the controller's interrupt number as printed ("2",
	// "32768"); "" if not printed.
	HWIRQ string
	// Type is the flow handler or trigger: "edge", "fasteoi", "Level",
	// Xen's "msi-x" and "virq".
	Type string
	// Actions are the handlers' names (shared IRQs have several):
	// "virtio1-input.0", "mlx5_comp3@pci:0000:3b:00.0", "eth0-TxRx-2".
	Actions []string
	// Description is the text of a named row ("Local timer interrupts").
	Description string
}

// Total returns the sum of the counts.
func (i Interrupt) Total() uint64 {
	var t uint64
	for _, c := range i.Counts {
		t += c
	}
	return t
}

// Count returns the count on CPU cpu, and 0 if the line has none for it.
func (i Interrupt) Count(cpu int) uint64 {
	for k, c := range i.CPUs {
		if c == cpu {
			return i.Counts[k]
		}
	}
	return 0
}

// Name returns the action names joined by ", " as the kernel prints them.
func (i Interrupt) Name() string { return strings.Join(i.Actions, ", ") }

// ByIRQ returns the line of IRQ n.
func (in Interrupts) ByIRQ(n int) (Interrupt, bool) {
	for _, l := range in.Lines {
		if l.IRQ == n && l.IRQ >= 0 {
			return l, true
		}
	}
	return Interrupt{}, false
}

// ByLabel returns the line whose label is label ("LOC", "ERR", "38").
func (in Interrupts) ByLabel(label string) (Interrupt, bool) {
	for _, l := range in.Lines {
		if l.Label == label {
			return l, true
		}
	}
	return Interrupt{}, false
}

// Interrupts reads and parses /proc/interrupts.
//
// Similar to: cat /proc/interrupts
func (fs Root) Interrupts() (Interrupts, error) {
	p := fs.procPath("interrupts")
	b, err := fs.readFile(p)
	if err != nil {
		return Interrupts{}, err
	}
	return parseInterrupts(b, "/proc/interrupts", nil)
}

// ParseInterrupts parses the format of /proc/interrupts. It never panics:
// ERR and MIS rows with one count, lines with fewer counts than CPUs,
// lines without a chip column, chips whose name has spaces and digits
// ("Hyper-V PCIe MSI 2701534461953-edge", "IR-PCI-MSIX-0000:3b:00.0
// 1-edge", "GICv3  27 Level") and old "IR-PCI-MSI-edge" chips all parse.
// A line that cannot be parsed (no "N:" label) is skipped and reported in
// the returned error (a *ParseError per line, joined); the other lines are
// kept. Input without the "CPU0 CPU1 ..." header (grep output) gives an
// error matching ErrNoHeader: use ParseInterruptLines for it.
//
// Not prometheus/procfs's Interrupts (checked against v0.23.0): it keeps
// counts as strings by column without CPU ids (a header with a gap such
// as "CPU0 CPU1 CPU3" is read, but the ids are lost), panics on a line
// with fewer counts than CPUs and no chip column ("index out of range")
// and on headerless grep output of two lines or more, and misreads a
// short line with a chip column silently (the chip becomes a count).
func ParseInterrupts(r io.Reader) (Interrupts, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return Interrupts{}, err
	}
	return parseInterrupts(b, "", nil)
}

// ParseInterruptLines parses lines of /proc/interrupts that may lack the
// header, as "grep mlx5 /proc/interrupts" prints them. cpus are the CPU ids
// of the count columns: the CPUs that were online when the lines were
// printed (/sys/devices/system/cpu/online, or CPUList of 0 to N-1 on a
// machine without offline CPUs). A header line in the input wins over
// cpus. Without a header and with no cpus, the error matches ErrNoHeader.
//
// Similar to: grep mlx5 /proc/interrupts
func ParseInterruptLines(r io.Reader, cpus []int) (Interrupts, error) {
	b, err := io.ReadAll(io.LimitReader(r, sysfs.MaxFileBytes))
	if err != nil {
		return Interrupts{}, err
	}
	return parseInterrupts(b, "", cpus)
}

// hwirqType matches the "<hwirq>-<handler>" column of current kernels
// ("2-edge", "32768-edge", "2701534461953-edge", "-fasteoi", Xen's
// "-msi-x").
var hwirqType = regexp.MustCompile(`^([0-9]*)-([a-z][a-z0-9_]*(?:-[a-z0-9_]+)*)$`)

// oldChipTypes are the flow handler names old kernels appended to the chip
// ("IR-PCI-MSI-edge", "IO-APIC-fasteoi", "xen-pirq-msi-x",
// "xen-percpu-virq"), longest first so that "-ioapic-level" is cut whole.
var oldChipTypes = []string{"ioapic-level", "ioapic-edge", "percpu_devid", "fasteoi", "edge_irq", "percpu", "simple", "level", "msi-x", "event", "edge", "virq", "ipi", "msi"}

// labelOK reports whether s can be the label of a /proc/interrupts line:
// an IRQ number or an architecture row name ("NMI", "IPI0", "Err").
func labelOK(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

func parseInterrupts(b []byte, file string, cpus []int) (Interrupts, error) {
	ls := lines(b)
	var in Interrupts
	var errs []error
	start := 0
	// The header is the first non-empty line.
	for start < len(ls) && strings.TrimSpace(ls[start]) == "" {
		start++
	}
	if start == len(ls) {
		return in, newParseError(file, 1, "", "empty file")
	}
	if hdr, ok := parseCPUHeader(ls[start]); ok {
		cpus = hdr
		start++
	} else if len(cpus) == 0 {
		e := newParseError(file, start+1, ls[start], `no "CPU0 CPU1 ..." header and no CPU list given`)
		e.Err = ErrNoHeader
		return in, e
	}
	in.CPUs = cpus
	in.Lines = make([]Interrupt, 0, len(ls)-start)
	for n := start; n < len(ls); n++ {
		line := ls[n]
		if strings.TrimSpace(line) == "" {
			continue
		}
		label, rest, ok := strings.Cut(line, ":")
		label = strings.TrimSpace(label)
		if !ok || !labelOK(label) {
			errs = append(errs, newParseError(file, n+1, line, "no label"))
			continue
		}
		it, extra := parseInterruptLine(label, rest, cpus)
		if extra {
			errs = append(errs, newParseError(file, n+1, line, "more counts than CPU columns"))
		}
		in.Lines = append(in.Lines, it)
	}
	return in, errors.Join(errs...)
}

// parseInterruptLine parses what follows the label. extra reports a count
// left over after one per CPU column (a wrong CPU list, or a header cut
// short).
func parseInterruptLine(label, rest string, cpus []int) (it Interrupt, extra bool) {
	it = Interrupt{Label: label, IRQ: -1}
	if n, err := strconv.Atoi(label); err == nil && n >= 0 {
		it.IRQ = n
	}
	var pos int
	it.Counts, pos = parseCounts(rest, len(cpus))
	k := len(it.Counts)
	it.CPUs = cpus[:k:k]
	rest = rest[pos:]
	if it.IRQ < 0 {
		it.Description = strings.TrimSpace(rest)
		return it, false
	}
	toks, _ := fields(rest)
	extra = k == len(cpus) && len(toks) > 1 && isDigits(toks[0]) && toks[1] != "Level" && toks[1] != "Edge"
	parseChipColumns(&it, rest)
	return it, extra
}

// parseCounts reads up to n decimal counts from the start of s, stopping
// at the first field that is not one, and returns them with the offset
// after the last. A "..." that stands for elided columns is skipped.
func parseCounts(s string, n int) ([]uint64, int) {
	counts := make([]uint64, 0, n)
	pos := 0
	for len(counts) < n {
		i := pos
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if i == j {
			break
		}
		if isElision(s[i:j]) {
			pos = j
			continue
		}
		c, err := strconv.ParseUint(s[i:j], 10, 64)
		if err != nil {
			break
		}
		counts = append(counts, c)
		pos = j
	}
	return counts, pos
}

// parseChipColumns reads what follows the counts of a numbered IRQ: chip,
// hwirq and type, and the action names. The kernel prints the chip's name
// as it is ("Hyper-V PCIe MSI", "IR-PCI-MSIX-0000:3b:00.0", "ITS-MSI"),
// so the chip is everything before the hwirq-handler column ("1-edge") or
// the trigger column of GENERIC_IRQ_SHOW_LEVEL ("27 Level"), and the
// actions everything after it.
func parseChipColumns(it *Interrupt, rest string) {
	toks, offs := fields(rest)
	if len(toks) == 0 {
		return
	}
	if oldChip(toks[0]) == "" || len(toks) > 1 && newColumn(toks[1]) {
		for i, t := range toks {
			if m := hwirqType.FindStringSubmatch(t); m != nil {
				it.Chip = strings.TrimSpace(rest[:offs[i]])
				it.HWIRQ, it.Type = m[1], m[2]
				setActions(it, rest, offs, i+1)
				return
			}
			if t == "Level" || t == "Edge" {
				end := offs[i]
				if i > 0 && isDigits(toks[i-1]) {
					it.HWIRQ, end = toks[i-1], offs[i-1]
				}
				it.Chip, it.Type = strings.TrimSpace(rest[:end]), t
				// A flow handler name may follow ("xen-dyn  Edge  -virq"
				// on arm64 Xen).
				if i+1 < len(toks) && hwirqType.MatchString(toks[i+1]) && toks[i+1][0] == '-' {
					i++
				}
				setActions(it, rest, offs, i+1)
				return
			}
		}
	}
	// Old kernels: chip and handler in one column ("IR-PCI-MSI-edge"), no
	// hwirq; or a chip alone ("None").
	it.Chip = toks[0]
	if t := oldChip(toks[0]); t != "" {
		it.Chip, it.Type = strings.TrimSuffix(toks[0], "-"+t), t
	}
	setActions(it, rest, offs, 1)
}

// oldChip returns the handler name an old kernel appended to chip
// ("edge" of "PCI-MSI-edge"), or "".
func oldChip(chip string) string {
	for _, t := range oldChipTypes {
		if c, ok := strings.CutSuffix(chip, "-"+t); ok && c != "" && !hwirqType.MatchString(chip) {
			return t
		}
	}
	return ""
}

// newColumn reports whether t is a hwirq-handler column of a known flow
// handler ("2-edge", "-virq") or a trigger column: a chip whose name ends
// like an old chip-handler pair ("xen-percpu") is then a current one.
func newColumn(t string) bool {
	if t == "Level" || t == "Edge" {
		return true
	}
	m := hwirqType.FindStringSubmatch(t)
	return m != nil && slices.Contains(oldChipTypes, m[2])
}

// setActions sets the action names from field i of rest on.
func setActions(it *Interrupt, rest string, offs []int, i int) {
	if i >= len(offs) {
		return
	}
	for a := range strings.SplitSeq(strings.TrimSpace(rest[offs[i]:]), ", ") {
		if a = strings.TrimSpace(a); a != "" {
			it.Actions = append(it.Actions, a)
		}
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// InterruptDelta is how much one line of /proc/interrupts grew between two
// samples.
type InterruptDelta struct {
	Label   string
	IRQ     int
	Actions []string
	// CPUs and Counts are parallel: Counts[i] interrupts on CPU CPUs[i]
	// between the samples. CPUs are those present in both samples.
	CPUs   []int
	Counts []uint64
}

// Total returns the sum of the counts.
func (d InterruptDelta) Total() uint64 {
	var t uint64
	for _, c := range d.Counts {
		t += c
	}
	return t
}

// Name returns the action names joined by ", ".
func (d InterruptDelta) Name() string { return strings.Join(d.Actions, ", ") }

// Count returns the count on CPU cpu.
func (d InterruptDelta) Count(cpu int) uint64 {
	for k, c := range d.CPUs {
		if c == cpu {
			return d.Counts[k]
		}
	}
	return 0
}

// Sub returns, for every line of after (this sample) that is also in
// before (matched by label), the per-CPU increase: after.Sub(before). The kernel's per-CPU counters are 32 bits
// wide and wrap; a count that went down by less than 2^32 is taken as one
// wrap, any other decrease (a CPU replugged) as 0.
func (after Interrupts) Sub(before Interrupts) []InterruptDelta {
	out := make([]InterruptDelta, 0, len(after.Lines))
	prev := make(map[string]Interrupt, len(before.Lines))
	for _, l := range before.Lines {
		prev[l.Label] = l
	}
	for _, a := range after.Lines {
		b, ok := prev[a.Label]
		if !ok {
			continue
		}
		d := InterruptDelta{Label: a.Label, IRQ: a.IRQ, Actions: a.Actions}
		for k, cpu := range a.CPUs {
			old, ok := countOf(b, cpu)
			if !ok {
				continue
			}
			d.CPUs = append(d.CPUs, cpu)
			d.Counts = append(d.Counts, counterDelta(old, a.Counts[k]))
		}
		out = append(out, d)
	}
	return out
}

func countOf(i Interrupt, cpu int) (uint64, bool) {
	for k, c := range i.CPUs {
		if c == cpu {
			return i.Counts[k], true
		}
	}
	return 0, false
}

// counterDelta is after-before for a counter that may be 32 bits wide.
func counterDelta(before, after uint64) uint64 {
	if after >= before {
		return after - before
	}
	if before <= math.MaxUint32 {
		return after + (math.MaxUint32 + 1) - before
	}
	return 0
}
