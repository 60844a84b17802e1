package runbook

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// HostInfo is what a preflight reads of a host besides its netdev: the
// runbook's "uname -r", "cpupower frequency-info", "systemctl status
// irqbalance firewalld", "sysctl net.core.rmem_max" and the firewall
// rules, on either end.
type HostInfo struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	// BootID is /proc/sys/kernel/random/boot_id: two ends with the same
	// one are one kernel (Sides.OneKernel). NetnsInode identifies the
	// side's network namespace.
	BootID     string `json:"boot_id,omitempty"`
	NetnsInode uint64 `json:"netns_inode,omitempty"`
	// Governors are the CPUs' cpufreq governors; none in most VMs.
	Governors []irq.CPUGovernor `json:"governors,omitempty"`
	// IRQBalance are the PIDs of running irqbalance daemons.
	IRQBalance []int `json:"irqbalance,omitempty"`
	// Sysctls are the socket buffer and backlog limits, by dotted key.
	Sysctls map[string]string `json:"sysctls,omitempty"`
	// Firewall are the rulesets as nft and iptables-save print them.
	Firewall []FirewallListing `json:"firewall,omitempty"`
	// Firewalld is "systemctl is-active firewalld": "active",
	// "inactive", or "" when there is no systemctl.
	Firewalld string `json:"firewalld,omitempty"`
	// Warnings say what could not be read; JSON has their messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// FirewallListing is one tool's listing of the rules.
type FirewallListing struct {
	Tool string `json:"tool"` // "nft", "iptables-save"
	Text string `json:"text,omitempty"`
	// Missing is set when the tool is not installed (nothing to list).
	Missing bool `json:"missing,omitempty"`
}

// PreflightSysctls are the limits a UDP or RDMA run depends on.
var PreflightSysctls = []string{"net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default",
	"net.core.wmem_default", "net.core.netdev_max_backlog", "net.ipv4.udp_mem"}

// Host reads the host's preflight facts. What cannot be read is a warning,
// not a failure: a host without cpufreq, nft or systemctl is usual.
func (l *Local) Host(ctx context.Context) (HostInfo, error) {
	var h HostInfo
	warn := func(err error) { h.Warnings = append(h.Warnings, err) }
	h.Hostname = readTrim("/proc/sys/kernel/hostname", warn)
	h.Kernel = readTrim("/proc/sys/kernel/osrelease", warn)
	if id, ino, err := l.kernelIdentity(); err == nil {
		h.BootID, h.NetnsInode = id, ino
	} else {
		warn(err)
	}
	fs := l.fs()
	if gs, err := fs.Governors(); err == nil {
		h.Governors = gs
	} else if !errors.Is(err, irq.ErrNoCpufreq) {
		warn(err)
	}
	if pids, err := fs.IRQBalance(); err == nil {
		h.IRQBalance = pids
	} else {
		warn(err)
	}
	h.Sysctls = map[string]string{}
	for _, k := range PreflightSysctls {
		if v, err := tune.ReadSysctl(l.Netns, k); err == nil {
			h.Sysctls[k] = v
		} else if l.Netns == "" || !errors.Is(err, os.ErrNotExist) {
			warn(err)
		}
	}
	// Limits the kernel keeps for the host's namespace only apply to a
	// side in another one too.
	for _, k := range PreflightSysctls {
		if _, ok := h.Sysctls[k]; !ok && l.Netns != "" {
			if v, err := tune.ReadSysctl("", k); err == nil {
				h.Sysctls[k] = v
			}
		}
	}
	for _, argv := range [][]string{{"nft", "list", "ruleset"}, {"iptables-save"}} {
		out, err := output(ctx, l.Runner(), argv...)
		switch {
		case errors.Is(err, host.ErrNotFound):
			h.Firewall = append(h.Firewall, FirewallListing{Tool: argv[0], Missing: true})
		case err != nil:
			warn(err)
		default:
			h.Firewall = append(h.Firewall, FirewallListing{Tool: argv[0], Text: string(out)})
		}
	}
	h.Firewalld = firewalldState(ctx, l.Runner())
	return h, nil
}

// firewalldState asks systemctl; it exits 3 for "inactive", which is an
// answer, not a failure.
func firewalldState(ctx context.Context, r host.Runner) string {
	p, err := host.Run(ctx, r, host.Cmd{Argv: []string{"systemctl", "is-active", "firewalld"}})
	if p == nil {
		return ""
	}
	var ee *host.ExitError
	if err != nil && !errors.As(err, &ee) {
		return ""
	}
	return strings.TrimSpace(p.Stdout().String())
}

func readTrim(path string, warn func(error)) string {
	b, err := os.ReadFile(path)
	if err != nil {
		warn(err)
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Host runs Local.Host on the peer.
func (p *Peer) Host(ctx context.Context) (HostInfo, error) {
	var r HostInfo
	return r, p.call(ctx, "host", nil, &r)
}

// PortCounters reads the device's port 1 counters from this host's sysfs
// (RDMA devices are shared by all network namespaces by default).
//
// Similar to: rdma statistic show link DEV/1
func (l *Local) PortCounters(_ context.Context, device string) (rxe.PortCounters, error) {
	return rxe.Root(l.fs()).PortCounters(device, 1)
}

// PortCounters runs Local.PortCounters on the peer.
func (p *Peer) PortCounters(ctx context.Context, device string) (rxe.PortCounters, error) {
	var r rxe.PortCounters
	return r, p.call(ctx, "port-counters", device, &r)
}

// KernelLog reads this host's kernel log through the side's runner.
//
// Similar to: dmesg -r
func (l *Local) KernelLog(ctx context.Context) ([]kmsg.Record, error) {
	log, err := kmsg.Read(ctx, l.Runner())
	return log.Records, err
}

// KernelLog runs Local.KernelLog on the peer.
func (p *Peer) KernelLog(ctx context.Context) ([]kmsg.Record, error) {
	var r []kmsg.Record
	return r, p.call(ctx, "kernel-log", nil, &r)
}
