package runbook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/report"
)

// RuleOneKernel is the preflight finding of two ends that are one kernel.
const RuleOneKernel = "one_kernel"

// kernelIdentity reads what tells one running kernel from another (its
// boot ID, new at every boot) and the side's network namespace (the inode
// of its namespace file).
func (l *Local) kernelIdentity() (bootID string, netnsInode uint64, err error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", 0, err
	}
	ns := "/proc/self/ns/net"
	if l.Netns != "" {
		if err := host.ValidNetnsName(l.Netns); err != nil {
			return "", 0, err
		}
		ns = filepath.Join(host.NetnsDir, l.Netns)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(ns, &st); err != nil {
		return "", 0, err
	}
	return string(trimNL(b)), st.Ino, nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// OneKernel says whether both ends run on one kernel (their boot IDs are
// the same): -peer to this very host, containers or pods on one node, a
// namespace of this host, or loopback. What is the kernel's (net.core.*
// limits, IRQ affinity, governors) is then shared: a change on one end is a
// change on both, and Restore undoes them in reverse global order. An end
// that cannot say (an older agent) gives false.
func (s *Sides) OneKernel(ctx context.Context) (bool, error) {
	near, far, err := s.ends()
	if err != nil {
		return false, err
	}
	if near == far {
		return true, nil
	}
	nh, err := near.Host(ctx)
	if err != nil {
		return false, err
	}
	fh, err := far.Host(ctx)
	if err != nil {
		return false, err
	}
	return oneKernel(nh, fh), nil
}

func oneKernel(a, b Host) bool { return a.BootID != "" && a.BootID == b.BootID }

// oneKernelFinding says that two ends of a two-host run are one kernel:
// warning for -peer (two hosts were meant), info for a namespace here.
func oneKernelFinding(mode Mode, near, far Host) []report.Finding {
	if mode == Loopback || !oneKernel(near, far) {
		return nil
	}
	f := report.Finding{Rule: RuleOneKernel, Severity: report.SeverityInfo,
		Summary: fmt.Sprintf("both ends run on one kernel (boot ID %s): its sysctls, IRQ affinity and governors are shared by them", near.BootID),
		Action:  "nothing to do: changes are undone newest first across both ends"}
	if mode == TwoHosts {
		f.Severity = report.SeverityWarning
		f.Summary = fmt.Sprintf("the peer is this host's kernel (boot ID %s; -peer to this machine, or containers on one node): both ends share its sysctls, IRQ affinity and governors, and their traffic never leaves the host", near.BootID)
		if near.NetnsInode != 0 && near.NetnsInode == far.NetnsInode {
			f.Summary += "; they share one network namespace too"
		}
		f.Action = "give -peer another host to measure a link; the run undoes its changes newest first across both ends"
	}
	return []report.Finding{f}
}
