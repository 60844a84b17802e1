package capture

import "time"

// commandRow is a single-command case.
type commandRow struct {
	group, name, tool string
	argv              string
	netns             string
	needs             []Phase
	expect            Expect
	note              string
}

func (r commandRow) spec() Spec {
	expect := r.expect
	if expect == "" {
		expect = ExpectOK
	}
	return Spec{
		Group: r.group, Name: r.name, Tool: r.tool, Note: r.note, Expect: expect, Needs: r.needs,
		Steps: []Step{{Run: &Command{Role: RoleCmd, Argv: fields(r.argv), Netns: r.netns, Timeout: 15 * time.Second}}},
	}
}

// snapshotRow is a case that copies files into its tree.
type snapshotRow struct {
	group, name   string
	paths         []string
	numberedBelow int
	needs         []Phase
	note          string
}

func (r snapshotRow) spec() Spec {
	return Spec{
		Group: r.group, Name: r.name, Tool: "kernel", Note: r.note, Expect: ExpectOK, Needs: r.needs,
		Steps: []Step{{Files: &Snapshot{Paths: r.paths, NumberedBelow: r.numberedBelow}}},
	}
}

// gidSlotsKept is how many GID slots (of rxe's 1024) the sysfs snapshot keeps: the used
// ones come first, and the rest show what an empty slot looks like.
const gidSlotsKept = 16

const rxePortDir = "/sys/class/infiniband/" + RXEDevice + "/ports/1"

// kernelFileSpecs are snapshots of /proc and /sys that need no RDMA and no namespaces, or
// must be taken before the netperf NICs leave capture's namespace.
func kernelFileSpecs() []Spec {
	rows := []snapshotRow{
		{group: GroupProc, name: "interrupts", paths: []string{"/proc/interrupts"}, note: "/proc/interrupts: per-CPU counts, PCI-MSIX virtio lines in the lab"},
		{group: GroupProc, name: "softirqs", paths: []string{"/proc/softirqs"}, note: "/proc/softirqs"},
		{group: GroupProc, name: "stat", paths: []string{"/proc/stat"}, note: "/proc/stat: cpu lines, intr, softirq"},
		{group: GroupProc, name: "softnet-stat", paths: []string{"/proc/net/softnet_stat"}, note: "/proc/net/softnet_stat: one hex row per CPU"},
		{group: GroupProc, name: "snmp", paths: []string{"/proc/net/snmp"}, note: "/proc/net/snmp of capture's namespace (Udp: InErrors, RcvbufErrors)"},
		{group: GroupProc, name: "net-dev", paths: []string{"/proc/net/dev"}, note: "/proc/net/dev of capture's namespace"},
		{group: GroupProc, name: "irq", paths: []string{"/proc/irq"}, note: "/proc/irq/*: smp_affinity(_list), effective_affinity(_list), node, spurious, default_smp_affinity"},
		{group: GroupSysfs, name: "cpu", paths: []string{
			"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present",
			"/sys/devices/system/node/node*/cpulist", "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
		}, note: "CPU lists, NUMA node CPU lists, governors where cpufreq exists (not in a TCG guest)"},
		{group: GroupSysfs, name: "net-veth0", paths: []string{"/sys/class/net/" + RXEVeth}, needs: []Phase{PhaseVeth}, note: "/sys/class/net/veth0 recursively (the rxe netdev); some attributes fail with EINVAL or EOPNOTSUPP"},
		{group: GroupSysfs, name: "net-nic-a", paths: []string{"/sys/class/net/" + PlaceholderNICA, "/sys/class/net/" + PlaceholderNICA + "/device/*"}, needs: []Phase{PhaseNICs}, note: "/sys/class/net of the first netperf NIC (virtio-net eth0 in the lab) and its device directory, before it moves into nsA"},
		{group: GroupSysfs, name: "rxe0-port1", paths: []string{rxePortDir}, numberedBelow: gidSlotsKept, needs: []Phase{PhaseRXE}, note: "rxe0 port 1 recursively: state, phys_state, gids/N, gid_attrs/types/N and ndevs/N (empty slots: all-zero GID, EINVAL on gid_attrs; only slots below 16 of 1024), counters, hw_counters"},
		{group: GroupSysfs, name: "rxe0-device", paths: []string{"/sys/class/infiniband/" + RXEDevice + "/*"}, needs: []Phase{PhaseRXE}, note: "top-level attributes of rxe0: node_guid, node_type, fw_ver, ..."},
	}
	specs := make([]Spec, len(rows))
	for i, r := range rows {
		specs[i] = r.spec()
	}
	return specs
}

// rdmaSpecs are rdma and ibverbs commands on rxe0.
func rdmaSpecs() []Spec {
	rows := []commandRow{
		{name: "link-show", tool: "rdma", argv: "rdma link show", note: "rdma link show: link rxe0/1 state ACTIVE physical_state LINK_UP netdev veth0"},
		{name: "link-show-json", tool: "rdma", argv: "rdma -j link show", note: "rdma -j link show"},
		{name: "link-show-port", tool: "rdma", argv: "rdma link show " + RXEDevice + "/1", note: "rdma link show rxe0/1"},
		{name: "link-show-nosuchdev", tool: "rdma", argv: "rdma link show nosuchdev/1", expect: ExpectFail, note: "expected failure: unknown device"},
		{name: "link-add-duplicate", tool: "rdma", argv: "rdma link add " + RXEDevice + " type rxe netdev " + RXEVeth, expect: ExpectFail, note: "expected failure: rxe0 exists already"},
		{name: "dev-show", tool: "rdma", argv: "rdma dev show", note: "rdma dev show"},
		{name: "dev-show-json", tool: "rdma", argv: "rdma -j dev show", note: "rdma -j dev show"},
		{name: "dev-show-details", tool: "rdma", argv: "rdma -d dev show", note: "rdma -d dev show"},
		{name: "res-show", tool: "rdma", argv: "rdma res show", note: "rdma res show: resource counts per device"},
		{name: "res-show-json", tool: "rdma", argv: "rdma -j res show", note: "rdma -j res show"},
		{name: "ibv-devices", tool: "ibverbs-utils", argv: "ibv_devices", note: "ibv_devices: device and node GUID table"},
		{name: "ibv-devinfo", tool: "ibverbs-utils", argv: "ibv_devinfo -d " + RXEDevice, note: "ibv_devinfo -d rxe0"},
		{name: "ibv-devinfo-verbose", tool: "ibverbs-utils", argv: "ibv_devinfo -v -d " + RXEDevice, note: "ibv_devinfo -v -d rxe0: all device and port attributes"},
	}
	specs := make([]Spec, len(rows))
	for i, r := range rows {
		r.group, r.needs = GroupRDMA, []Phase{PhaseRXE}
		specs[i] = r.spec()
	}
	return specs
}

// NICKind says what the netperf NICs are, which decides what ethtool can do on them.
type NICKind int

const (
	// NICVirtio is the lab: two virtio-net NICs on one QEMU hub.
	NICVirtio NICKind = iota
	// NICVeth is a veth pair that capture creates (-veth-for-netperf).
	NICVeth
)

// ethtoolQuery is one ethtool option and whether veth supports it.
type ethtoolQuery struct {
	name, option string
	vethHasIt    bool
}

func ethtoolQueries() []ethtoolQuery {
	return []ethtoolQuery{
		{"link", "", true},
		{"info", "-i", true},
		{"stats", "-S", true},
		{"channels", "-l", true},
		{"rings", "-g", false},
		{"features", "-k", true},
		{"coalesce", "-c", false},
	}
}

// ethtoolSpecs runs every ethtoolQuery on the rxe veth (in capture's namespace) and on the
// first netperf NIC (in nsA, up and addressed).
func ethtoolSpecs(nics NICKind) []Spec {
	var specs []Spec
	add := func(prefix, dev, netns, devNote string, isVeth bool, needs []Phase) {
		for _, q := range ethtoolQueries() {
			r := commandRow{
				group: GroupEthtool, name: prefix + "-" + q.name, tool: "ethtool",
				argv: "ethtool " + q.option + " " + dev, netns: netns, needs: needs,
				note: "ethtool " + q.option + " on " + devNote,
			}
			if isVeth && !q.vethHasIt {
				r.expect = ExpectFail
				r.note += "; expected failure: veth has no such ethtool operation (Operation not supported)"
			}
			specs = append(specs, r.spec())
		}
	}
	add(RXEVeth, RXEVeth, "", "veth0, the rxe netdev (driver veth)", true, []Phase{PhaseVeth})
	nicNote := "the first netperf NIC in nsA (virtio-net eth0 in the lab)"
	if nics == NICVeth {
		nicNote = "the first netperf NIC in nsA (a veth created by capture)"
	}
	add("nic-a", PlaceholderNICA, NetnsA, nicNote, nics == NICVeth, []Phase{PhaseNetns})
	return specs
}

// deltaSteps snapshots the counters that change with traffic: global /proc files, the
// per-namespace /proc/net files of nsA and nsB, and ethtool -S of both NICs.
func deltaSteps(label string) []Step {
	netFiles := []string{"/proc/net/snmp", "/proc/net/dev"}
	return []Step{
		{Files: &Snapshot{Root: label, Paths: []string{"/proc/interrupts", "/proc/softirqs", "/proc/stat", "/proc/net/softnet_stat"}}},
		{Files: &Snapshot{Root: label + "-" + NetnsA, Netns: NetnsA, Paths: netFiles}},
		{Files: &Snapshot{Root: label + "-" + NetnsB, Netns: NetnsB, Paths: netFiles}},
		{Run: &Command{Role: label + "-ethtool-nic-a", Argv: []string{"ethtool", "-S", PlaceholderNICA}, Netns: NetnsA, Timeout: 15 * time.Second}},
		{Run: &Command{Role: label + "-ethtool-nic-b", Argv: []string{"ethtool", "-S", PlaceholderNICB}, Netns: NetnsB, Timeout: 15 * time.Second}},
	}
}

// deltaSpecs wrap a netperf run in before/after snapshots.
func deltaSpecs() []Spec {
	run := netperfRow{
		name: "deltas-udp-stream", port: 12899, args: "-t UDP_STREAM -l 2 -- -m 1400 -s 2M -S 2M",
	}.spec()
	steps := append(deltaSteps("before"), run.Steps...)
	steps = append(steps, deltaSteps("after")...)
	return []Spec{{
		Group: GroupProc, Name: "deltas-udp-stream", Tool: "netperf", Expect: ExpectOK, Needs: []Phase{PhaseNetns},
		Note: "before/after snapshots around a UDP_STREAM -m 1400 run from nsA to nsB: /proc/interrupts (virtio input/output MSI-X), " +
			"softirqs, stat, softnet_stat, /proc/net/snmp and /proc/net/dev of both namespaces, ethtool -S of both NICs",
		Steps: steps,
	}}
}
