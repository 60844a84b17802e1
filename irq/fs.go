package irq

import (
	"fmt"
	iofs "io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
	"github.com/rocekit/rocekit/sysroot"
)

// Root reads and writes this package's kernel files (/proc/interrupts,
// /proc/irq, /sys/devices/system/cpu) below a sysroot.Root, as
// procfs.NewFS(mountPoint) does: irq.Root(sysroot.ProcSys(proc, sys)). The
// zero value is the live system. nic.Root and rxe.Root are the same root
// under their packages' names. A root made with sysroot.FromFS reads; its
// writes fail with ErrReadOnly.
type Root sysroot.Root

func (fs Root) root() sysfs.Root { return sysfs.Of(sysroot.Root(fs)) }

// procPath and sysPath name a file below the root ("proc/interrupts").
func (fs Root) procPath(elem ...string) string {
	return path.Join(append([]string{"proc"}, elem...)...)
}

func (fs Root) sysPath(elem ...string) string {
	return path.Join(append([]string{"sys"}, elem...)...)
}

// readFile reads a whole kernel file.
func (fs Root) readFile(name string) ([]byte, error) { return fs.root().ReadFile(name) }

// readString reads a one-value kernel file without surrounding space.
func (fs Root) readString(name string) (string, error) {
	s, err := fs.root().ReadString(name)
	return strings.TrimSpace(s), err
}

func (fs Root) readCPUList(name string) (CPUList, error) {
	l, err := fs.root().ReadCPUList(name)
	return l, parseErr(err)
}

// parseErr makes a topology parse error match ErrParse too.
func parseErr(err error) error { return sysfs.AlsoMatch(err, ErrParse) }

// writable reports whether any write permission bit is set on name. The
// kernel makes smp_affinity_list mode 0444 for IRQs user space cannot move,
// and root could otherwise open it for writing.
func (fs Root) writable(name string) (bool, error) {
	st, err := iofs.Stat(fs.root().FS(), name)
	if err != nil {
		return false, err
	}
	return st.Mode().Perm()&0o222 != 0, nil
}

// writeKernelFile writes value to an existing kernel file below the root.
func (fs Root) writeKernelFile(name, value string) error {
	p, ok := fs.root().OSPath(name)
	if !ok {
		return fmt.Errorf("irq: write %s: %w", name, ErrReadOnly)
	}
	return writeKernelFile(p, value)
}

// fields is strings.Fields with the byte offset of each field in s.
func fields(s string) (toks []string, offs []int) {
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		toks = append(toks, s[i:j])
		offs = append(offs, i)
		i = j
	}
	return toks, offs
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// parseCPUHeader reads a "CPU0 CPU1 ..." header line as used by
// /proc/interrupts and /proc/softirqs.
func parseCPUHeader(line string) ([]int, bool) {
	toks, _ := fields(line)
	if len(toks) == 0 {
		return nil, false
	}
	cpus := make([]int, 0, len(toks))
	for _, t := range toks {
		if isElision(t) {
			continue
		}
		n, ok := strings.CutPrefix(t, "CPU")
		if !ok {
			return nil, false
		}
		id, err := strconv.Atoi(n)
		if err != nil || id < 0 || id >= sysfs.MaxCPUID {
			return nil, false
		}
		cpus = append(cpus, id)
	}
	return cpus, len(cpus) > 0
}

// isElision reports whether t is the "..." a person put in place of
// columns when pasting a wide output ("CPU0 CPU1 ... CPU38 CPU39"). The
// kernel never prints it; readers skip it, so that the columns shown keep
// their CPU ids.
func isElision(t string) bool { return t == "..." || t == "…" }

// lines splits b into lines without their "\n" (and "\r"), dropping a final
// empty line.
func lines(b []byte) []string {
	s := string(b)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}
