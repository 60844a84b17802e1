package irq

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FS reads and writes the kernel files of this package below two roots,
// normally /proc and /sys. Tests point it at fixture trees, as
// procfs.NewFS(mountPoint) does. The zero value is not usable; make one
// with NewFS or DefaultFS.
type FS struct {
	proc string
	sys  string
}

// NewFS returns an FS rooted at procRoot (in place of /proc) and sysRoot
// (in place of /sys); "" is the live /proc or /sys. It does not check that
// they exist.
func NewFS(procRoot, sysRoot string) FS {
	if procRoot == "" {
		procRoot = "/proc"
	}
	if sysRoot == "" {
		sysRoot = "/sys"
	}
	return FS{proc: filepath.Clean(procRoot), sys: filepath.Clean(sysRoot)}
}

// ProcRoot returns the folder used in place of /proc.
func (fs FS) ProcRoot() string { return fs.proc }

// SysRoot returns the folder used in place of /sys.
func (fs FS) SysRoot() string { return fs.sys }

func (fs FS) procPath(elem ...string) string {
	return filepath.Join(append([]string{fs.proc}, elem...)...)
}

func (fs FS) sysPath(elem ...string) string {
	return filepath.Join(append([]string{fs.sys}, elem...)...)
}

// maxFileBytes bounds what is read from one kernel file; /proc/interrupts of
// a 8192-CPU machine with a thousand IRQs stays well below it.
const maxFileBytes = 256 << 20

// readFile reads a whole kernel file. Like procfs's ReadFileNoStat it does
// not trust the size that stat reports (0 or 4096 for most kernel files).
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// readString reads a one-value kernel file and trims the trailing newline.
func readString(path string) (string, error) {
	b, err := readFile(path)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil
}

func readInt(path string) (int, error) {
	s, err := readString(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %q is not a number", ErrParse, path, s)
	}
	return n, nil
}

func readCPUList(path string) (CPUList, error) {
	s, err := readString(path)
	if err != nil {
		return nil, err
	}
	l, err := ParseCPUList(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// writable reports whether any write permission bit is set on path. The
// kernel makes smp_affinity_list mode 0444 for IRQs user space cannot move,
// and root could otherwise open it for writing.
func writable(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return st.Mode().Perm()&0o222 != 0, nil
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
		if err != nil || id < 0 || id >= maxCPUID {
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
