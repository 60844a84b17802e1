package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/sysroot"
)

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// normalizeSysctl folds a sysctl value as the kernel prints it (tabs
// between the numbers of udp_mem, a trailing newline) to one form, so
// that a value read back compares equal to the one written.
func normalizeSysctl(v string) string { return strings.Join(strings.Fields(v), " ") }

// foldBlanks folds runs of spaces and TABs in a value to set into one
// space, keeping every other character, so that a newline or a control
// character reaches validation instead of being folded away.
func foldBlanks(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

// sysctlPath is the key's file under procRoot/sys: dots separate the
// levels of a dotted key; a key with '/' is a path already.
func sysctlPath(procRoot, key string) string {
	rel := key
	if !strings.Contains(key, "/") {
		rel = strings.ReplaceAll(key, ".", "/")
	}
	return filepath.Join(procRoot, "sys", rel)
}

// ReadSysctl reads a kernel parameter by its dotted name or /proc/sys
// path, in the caller's network namespace or in a named one, with runs of
// blanks folded to one space ("4096 131072 6291456").
//
// Similar to: ip netns exec NETNS sysctl -n KEY
func ReadSysctl(netns, key string) (string, error) {
	if err := ValidateSysctlKey(key); err != nil {
		return "", err
	}
	return readSysctl("/proc", netns, key)
}

// readSysctl reads a sysctl in the caller's namespace or, for netns, in
// that named network namespace.
func readSysctl(procRoot, netns, key string) (string, error) {
	var b []byte
	err := inNetns(netns, func() (err error) {
		b, err = os.ReadFile(sysctlPath(procRoot, key))
		return err
	})
	if err != nil {
		return "", sysctlError(netns, key, err)
	}
	return normalizeSysctl(string(b)), nil
}

func writeSysctl(procRoot, netns, key, value string) error {
	err := inNetns(netns, func() error {
		// O_TRUNC as the shell's ">" does: procfs ignores it, a fixture needs it.
		f, err := os.OpenFile(sysctlPath(procRoot, key), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(value + "\n"); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		return sysctlError(netns, key, err)
	}
	return nil
}

func sysctlError(netns, key string, err error) error {
	where := ""
	if netns != "" {
		where = " in netns " + netns
	}
	switch {
	case (errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission)) && netns != "":
		// net.core.rmem_max: absent from other namespaces before 6.x,
		// read-only there since.
		return fmt.Errorf("sysctl %s%s: %w (the kernel lets only the host's namespace set it: give it without a netns)", key, where, err)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("sysctl %s%s: %w (no such kernel parameter)", key, where, err)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("sysctl %s%s: %w (needs root)", key, where, err)
	case errors.Is(err, syscall.EINVAL):
		return fmt.Errorf("sysctl %s%s: %w (the kernel refused the value)", key, where, err)
	}
	return fmt.Errorf("sysctl %s%s: %w", key, where, err)
}

// readIRQBalance finds the irqbalance daemons and whether all of them are
// stopped (state T in /proc/PID/stat).
func readIRQBalance(fs irq.Root) (Value, error) {
	pids, err := fs.IRQBalance()
	if err != nil {
		return Value{}, err
	}
	st := &IRQBalanceState{PIDs: pids, Paused: len(pids) > 0}
	for _, pid := range pids {
		b, err := os.ReadFile(filepath.Join(sysroot.Root(fs).ProcDir(), strconv.Itoa(pid), "stat"))
		if err != nil {
			continue // it exited
		}
		// "PID (comm) STATE ...": comm may hold spaces and parentheses.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i < 0 || i+2 >= len(s) || s[i+2] != 'T' {
			st.Paused = false
		}
	}
	return Value{IRQBalance: st}, nil
}

// writeIRQBalance pauses or resumes the daemons. Resuming signals the PIDs
// the journal paused that are still irqbalance (a PID reused by another
// program is left alone).
func writeIRQBalance(fs irq.Root, want IRQBalanceState) error {
	pids := want.PIDs
	if want.Paused {
		cur, err := fs.IRQBalance()
		if err != nil {
			return err
		}
		pids = cur
	}
	running, err := fs.IRQBalance()
	if err != nil {
		return err
	}
	var errs []error
	for _, pid := range pids {
		if !containsInt(running, pid) {
			continue
		}
		if err := signalIRQBalance(pid, want.Paused); err != nil {
			errs = append(errs, fmt.Errorf("irqbalance pid %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

// readFeatures and writeFeatures go through nic in the target's
// namespace.
func (s *liveSystem) readFeatures(ctx context.Context, t Target) (Value, error) {
	h, err := s.nic(t.Netns)
	if err != nil {
		return Value{}, err
	}
	fs, err := h.Features(ctx, t.Netdev)
	if err != nil {
		return Value{}, err
	}
	out := make(map[string]bool, len(fs))
	for name, f := range fs {
		out[name] = f.Active
	}
	return Value{Features: out}, nil
}

func (s *liveSystem) writeFeatures(ctx context.Context, t Target, want map[string]bool) error {
	h, err := s.nic(t.Netns)
	if err != nil {
		return err
	}
	_, err = h.SetFeatures(ctx, t.Netdev, want)
	return err
}
