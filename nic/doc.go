// Package nic reads and tunes a network device the way the NIC runbook
// does, and records it for reports:
//
//	ip link set eth0 mtu 9000        # Handle.SetMTU (returns the old MTU, verified)
//	ip link set eth0 up              # Handle.SetUp
//	ethtool -i eth0                  # Handle.Driver
//	ethtool eth0                     # Handle.LinkSettings
//	ethtool -g / -G, -l / -L, -k / -K  # Handle.Ring/SetRing, Channels/SetChannels, Features/SetFeatures
//	ethtool -S eth0 | grep drop      # Handle.Stats, Stats.Sub, StatsDelta.Losses and Pauses
//	ethtool -S eth0 > eth0.txt       # ParseEthtoolStats reads such text from other hosts
//	netstat -su                      # Root.SNMP, Handle.UDP (RcvbufErrors, SndbufErrors)
//	lspci -vvv | grep -i numa        # Root.Device (NUMA node, local CPUs, PCI ids)
//	ping -M do -s 8972 198.18.0.2    # Handle.ProbeMTU (and the largest size the path does carry)
//
// Netdevs are changed over netlink (github.com/vishvananda/netlink) and
// ethtool ioctls (github.com/safchain/ethtool) by a Handle bound to the
// caller's or a named network namespace; every change returns the value it
// replaced. A driver that lacks an ethtool operation gives ErrNotSupported,
// not a failure of the run. Files under /sys and /proc are read through a
// Root, so the parsers run on fixtures captured in the lab (testdata). Root
// is a sysroot.Root, as irq.Root and rxe.Root are, so one value serves all
// three: nic.Root(sysroot.Dir(dir)); Options.Root takes the same value.
// RoCEPathMTU and RXEPathMTU give the RoCE MTU a netdev MTU allows.
//
// Typical use:
//
//	h, err := nic.Open(nic.Options{})
//	if err != nil {
//		return err
//	}
//	defer h.Close()
//	old, err := h.SetMTU(ctx, "eth0", 9000) // restore with h.SetMTU(ctx, "eth0", old)
//	before, _ := h.Stats(ctx, "eth0")
//	// ... run netperf ...
//	after, _ := h.Stats(ctx, "eth0")
//	d, _ := after.Sub(before)
//	for _, c := range d.Losses() {
//		fmt.Println(c.Source, c.Name, c.Class, c.Delta) // ethtool rx_queue_0_drops drop 1234
//	}
//
// The Handle part is Linux-only and returns ErrUnsupportedOS elsewhere.
package nic
