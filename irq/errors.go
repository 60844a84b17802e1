package irq

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/rocekit/rocekit/internal/sentinel"
	"github.com/rocekit/rocekit/internal/sysfs"
)

// Sentinel errors. Callers test for them with errors.Is; the typed errors
// below wrap them and keep the details.
var (
	// ErrParse is wrapped by every parse failure (see ParseError).
	ErrParse = errors.New("irq: cannot parse")

	// ErrNoHeader means /proc/interrupts text came without its "CPU0
	// CPU1 ..." header (grep output) and no CPU list was given to map
	// its count columns to CPUs (see ParseInterruptLines). Errors that
	// match it also match ErrParse.
	ErrNoHeader = errors.New("irq: no CPU header line")

	// ErrUnsupportedOS is returned by calls that need a Linux kernel when the
	// package is built for another system.
	ErrUnsupportedOS = fmt.Errorf("irq: not supported on %s/%s", runtime.GOOS, runtime.GOARCH)

	// ErrNotWritable means an IRQ's affinity cannot be changed from user
	// space: a managed or per-CPU interrupt, whose smp_affinity_list is
	// mode 0444 and whose writes fail with EIO (older kernels) or EPERM
	// (newer). Policies skip such IRQs; callers can too.
	ErrNotWritable = errors.New("irq: affinity not writable (managed or per-CPU interrupt)")

	// ErrReadOnly is wrapped by writes through a Root made from an fs.FS
	// (irq.Root(sysroot.FromFS(fsys))), which has no files to write to.
	ErrReadOnly = sysfs.ErrReadOnly

	// ErrInvalidCPUs means the kernel refused a CPU list (EINVAL), most
	// often because it names no online CPU.
	ErrInvalidCPUs = errors.New("irq: CPU list refused (no online CPU in it?)")

	// ErrNoCpufreq means the CPU has no cpufreq directory: no frequency
	// scaling driver, as in most virtual machines. It matches
	// fs.ErrNotExist too.
	ErrNoCpufreq = sentinel.NotExist("irq: cpufreq absent")

	// ErrNoDevice means a netdev has no device behind it (lo, veth,
	// bridges), so it has no IRQs of its own. It matches fs.ErrNotExist
	// too.
	ErrNoDevice = sentinel.NotExist("irq: netdev has no device")

	// ErrIRQBalance is wrapped by the warning given when irqbalance runs:
	// it will rewrite the affinity this package sets.
	ErrIRQBalance = errors.New("irq: irqbalance is running and will rewrite IRQ affinity")
)

// ParseError tells which line of which file could not be parsed. It wraps
// ErrParse.
type ParseError struct {
	File string // "/proc/interrupts", or "" when parsing a reader
	Line int    // 1-based
	Text string // the line, cut to 120 bytes
	Msg  string // what was wrong
	// Err is a more specific sentinel the error also matches
	// (ErrNoHeader), or nil.
	Err error
}

// Error says which file and line could not be parsed, and why.
func (e *ParseError) Error() string {
	f := e.File
	if f == "" {
		f = "input"
	}
	return fmt.Sprintf("%v: %s line %d: %s: %q", ErrParse, f, e.Line, e.Msg, e.Text)
}

// Unwrap returns ErrParse.
func (e *ParseError) Unwrap() error { return ErrParse }

// Is reports whether target is e.Err, so that errors.Is(err, ErrNoHeader)
// holds for a missing header.
func (e *ParseError) Is(target error) bool { return e.Err != nil && target == e.Err }

func newParseError(file string, line int, text, msg string) *ParseError {
	if len(text) > 120 {
		text = text[:120]
	}
	return &ParseError{File: file, Line: line, Text: text, Msg: msg}
}

// AffinityError is returned when an IRQ's affinity cannot be read or set.
// errors.Is(err, ErrNotWritable) reports a managed or per-CPU IRQ (EIO,
// EPERM, or a mode 0444 file), errors.Is(err, ErrInvalidCPUs) a CPU list
// the kernel refused (EINVAL); Unwrap gives the underlying error (an
// *os.PathError holding the errno).
type AffinityError struct {
	IRQ  int
	CPUs CPUList // the list that was being written; nil for reads
	Err  error
}

// Error names the IRQ, the list being written and the cause.
func (e *AffinityError) Error() string {
	if e.CPUs != nil {
		return fmt.Sprintf("irq: IRQ %d: set affinity %q: %v", e.IRQ, e.CPUs.String(), e.Err)
	}
	return fmt.Sprintf("irq: IRQ %d: affinity: %v", e.IRQ, e.Err)
}

// Unwrap returns the underlying error.
func (e *AffinityError) Unwrap() error { return e.Err }

// Is maps the kernel's answers to the package's sentinels: EIO, EPERM and
// read-only files to ErrNotWritable, EINVAL to ErrInvalidCPUs.
func (e *AffinityError) Is(target error) bool {
	switch target {
	case ErrNotWritable:
		return errors.Is(e.Err, errReadOnly) || isNotWritableErrno(e.Err)
	case ErrInvalidCPUs:
		return isInvalidErrno(e.Err)
	}
	return false
}

// errReadOnly is what a write to a file without write permission gives
// before the kernel is asked (the kernel makes smp_affinity_list of managed
// IRQs mode 0444).
var errReadOnly = fmt.Errorf("file is read-only: %w", os.ErrPermission)

// GovernorError is returned when a CPU's cpufreq governor cannot be read or
// set. errors.Is(err, ErrNoCpufreq) reports a CPU without cpufreq.
type GovernorError struct {
	CPU      int
	Governor string // the governor being set; "" for reads
	Err      error
}

// Error names the CPU, the governor being set and the cause.
func (e *GovernorError) Error() string {
	if e.Governor != "" {
		return fmt.Sprintf("irq: cpu%d: set governor %q: %v", e.CPU, e.Governor, e.Err)
	}
	return fmt.Sprintf("irq: cpu%d: governor: %v", e.CPU, e.Err)
}

// Unwrap returns the underlying error.
func (e *GovernorError) Unwrap() error { return e.Err }
