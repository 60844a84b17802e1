package runbook

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// Host is what a preflight reads of a host besides its netdev: the
// runbook's "uname -r", "cpupower frequency-info", "systemctl status
// irqbalance firewalld", "sysctl net.core.rmem_max" and the firewall
// rules, on either end.
type Host struct {
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
	// Tools maps each of report.RDMATools' programs to its path in the
	// side's PATH, "" when it is not installed.
	Tools map[string]string `json:"tools,omitempty"`
	// RoCEv2Bound are the UDP sockets on port 4791 of the side's
	// namespace ("0.0.0.0:4791": rdma_rxe's, while it has a link);
	// RoCEv2BoundHost those of this host's own namespace for a side in
	// another one. RoCEv2Known is false when they could not be read.
	RoCEv2Bound     []string `json:"rocev2_bound,omitempty"`
	RoCEv2BoundHost []string `json:"rocev2_bound_host,omitempty"`
	RoCEv2Known     bool     `json:"rocev2_known,omitempty"`
	// RDMADevices are the host's RDMA devices with their ports' state
	// (sysfs; devices are shared by every namespace by default).
	RDMADevices []rxe.Device `json:"rdma_devices,omitempty"`
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
func (l *Local) Host(ctx context.Context) (Host, error) {
	var h Host
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
	l.rdmaHost(ctx, &h, warn)
	return h, nil
}

// rdmaHost reads what the soft-RoCE preflight needs: the tools, the UDP
// 4791 sockets of the side's namespace (and of the host's, for a side in
// another), and the RDMA devices.
func (l *Local) rdmaHost(ctx context.Context, h *Host, warn func(error)) {
	h.Tools = map[string]string{}
	for _, t := range report.RDMATools {
		p, _ := exec.LookPath(t.Name) // the side's runner runs it with this PATH
		h.Tools[t.Name] = p
	}
	bound := func(netns string) ([]string, error) {
		n, err := nic.Open(nic.Options{Netns: netns, Root: l.Root})
		if err != nil {
			return nil, err
		}
		defer n.Close()
		socks, err := n.UDPBound(ctx)
		var out []string
		for _, s := range socks {
			if s.Local.Port() == report.RoCEv2Port {
				out = append(out, s.Local.String())
			}
		}
		return out, err
	}
	var err error
	if h.RoCEv2Bound, err = bound(l.Netns); err == nil {
		h.RoCEv2Known = true
		if l.Netns != "" {
			if h.RoCEv2BoundHost, err = bound(""); err != nil {
				warn(err)
			}
		}
	} else {
		warn(err)
	}
	root := rxe.Root(l.Root)
	names, err := root.DeviceNames()
	if err != nil {
		warn(err)
	}
	for _, name := range names {
		d, err := root.Device(name)
		if err != nil {
			warn(err)
			continue
		}
		h.RDMADevices = append(h.RDMADevices, d)
	}
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
func (p *Peer) Host(ctx context.Context) (Host, error) {
	var r Host
	return r, p.call(ctx, "host", nil, &r)
}

// PortCounters reads the device's port 1 counters from this host's sysfs
// (RDMA devices are shared by all network namespaces by default).
//
// Similar to: rdma statistic show link DEV/1
func (l *Local) PortCounters(_ context.Context, device string) (rxe.PortCounters, error) {
	return rxe.Root(l.Root).PortCounters(device, 1)
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
