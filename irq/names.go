package irq

import (
	"regexp"
	"strconv"
	"strings"
)

// Role is what an IRQ of a NIC is for.
type Role string

// Roles of a NIC's IRQs.
const (
	// RoleQueue is a data queue's vector: the ones to spread.
	RoleQueue Role = "queue"
	// RoleControl is a control vector (mlx5 async/command EQ, virtio
	// config, Intel "misc"): policies leave it alone.
	RoleControl Role = "control"
	// RoleSideband is a queue vector that carries no traffic of the
	// netdev's data queues: i40e's Flow Director sideband ring
	// ("i40e-0000:01:00.0:fdir-TxRx-0", "i40e-eth0-fdir-TxRx-0"), which
	// programs filters. Policies leave it alone and Distribute does not
	// count it.
	RoleSideband Role = "sideband"
	// RoleCoreEQ is a completion vector of the device's core driver that
	// the netdev's rings do not use: old mlx4_core's "mlx4-comp-N@pci:…"
	// event queues when mlx4_en (OFED 2.x/3.x, kernels before 4.x) gave
	// each ring its own vector named after the netdev ("eth2-0"). RDMA
	// (mlx4_ib) completions use them. Policies leave them alone.
	RoleCoreEQ Role = "core-eq"
	// RoleOther is a vector of the device whose name is not known.
	RoleOther Role = "other"
)

// Direction is the traffic direction of a queue vector.
type Direction string

// Directions of queue vectors.
const (
	DirUnknown Direction = ""
	DirRX      Direction = "rx"
	DirTX      Direction = "tx"
	DirRXTX    Direction = "rxtx" // combined channel ("TxRx", mlx5 completion EQ)
)

// namePattern classifies action names that do not depend on the netdev's
// name. The first submatch, if any, is the queue index.
type namePattern struct {
	re   *regexp.Regexp
	role Role
	dir  Direction
}

var namePatterns = []namePattern{
	// i40e Flow Director sideband: "i40e-0000:01:00.0:fdir-TxRx-0",
	// "i40e-eth0-fdir-TxRx-0"; before the TxRx patterns.
	{regexp.MustCompile(`(?i)[-:]fdir-`), RoleSideband, DirUnknown},
	// mlx5: "mlx5_comp7@pci:0000:3b:00.0"; control: "mlx5_async0@pci:…",
	// older "mlx5_pages_eq@…", "mlx5_cmd_eq@…", "mlx5_async_eq@…".
	{regexp.MustCompile(`^mlx5_comp([0-9]+)@`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`^mlx5_`), RoleControl, DirUnknown},
	// mlx4: "mlx4-3@0000:04:00.0", "mlx4-comp-3@pci:0000:04:00.0" (old
	// mlx4_core; see RoleCoreEQ), "mlx4-async@pci:0000:04:00.0".
	{regexp.MustCompile(`^mlx4-(?:comp-)?([0-9]+)@`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`^mlx4-async@`), RoleControl, DirUnknown},
	// MANA (Azure): "mana_q0@pci:7870:00:00.0"; control "mana_hwc@pci:…".
	{regexp.MustCompile(`^mana_q([0-9]+)@`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`^mana_hwc@`), RoleControl, DirUnknown},
	// virtio-net: "virtio1-input.0", "virtio1-output.0", "virtio1-config",
	// "virtio1-control"; "virtio1-virtqueues" when all queues share one
	// vector.
	{regexp.MustCompile(`^virtio[0-9]+-input\.([0-9]+)$`), RoleQueue, DirRX},
	{regexp.MustCompile(`^virtio[0-9]+-output\.([0-9]+)$`), RoleQueue, DirTX},
	{regexp.MustCompile(`^virtio[0-9]+-(config|control)$`), RoleControl, DirUnknown},
	{regexp.MustCompile(`^virtio[0-9]+-virtqueues$`), RoleQueue, DirRXTX},
	// gve: "gve-ntfy-blk3@pci:0000:00:04.0", "gve-mgmnt@pci:…".
	{regexp.MustCompile(`^gve-ntfy-blk([0-9]+)@`), RoleQueue, DirRXTX},
	// QLogic (qlge, qlcnic): "eth0-tx-0-rx-3" is RX ring 3 that also
	// serves TX ring 0.
	{regexp.MustCompile(`(?i)-tx-[0-9]+-rx-([0-9]+)$`), RoleQueue, DirRXTX},
	// Intel (igb, ixgbe, i40e, ice, iavf, idpf), bnxt, hns3, ena, bnx2x,
	// qede, ionic: "eth0-TxRx-3", "i40e-eth0-TxRx-3", "ice-eth0-TxRx-3",
	// "eth0-Tx-Rx-3" (ena), "eth0-fp-3" (bnx2x, qede), "eth0-rx-3",
	// "eth0-tx-3", Emulex be2net "eth0-rx-1"/"eth0-tx-0", "eth0:rx-3".
	{regexp.MustCompile(`(?i)-tx-?rx-([0-9]+)$`), RoleQueue, DirRXTX},
	// ice 1.16 out of tree, two queue pairs per vector:
	// "ice-ens2f1-TxRx-0-1" (intel/ethernet-linux-ice issue 16).
	{regexp.MustCompile(`(?i)-tx-?rx-([0-9]+)-[0-9]+$`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`(?i)-rx-?tx-([0-9]+)$`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`-fp-([0-9]+)$`), RoleQueue, DirRXTX},
	{regexp.MustCompile(`(?i)[-:]rx-?([0-9]+)$`), RoleQueue, DirRX},
	{regexp.MustCompile(`(?i)[-:]tx-?([0-9]+)$`), RoleQueue, DirTX},
	// Control vectors: "i40e-0000:3b:00.0:misc", "ice-0000:3b:00.0:misc",
	// "ena-mgmnt@pci:…", "gve-mgmnt@pci:…", "bnxt_…-async", "…-aeq".
	{regexp.MustCompile(`(?i)(misc|mgmnt|mgmt|async|-config|-ctrl|-aeq|-event)`), RoleControl, DirUnknown},
}

// ClassifyAction tells what an IRQ action name of a NIC is for, with the
// queue index it carries (-1 if none). netdev is the interface name, used
// for drivers that name vectors after it ("eth0" alone is igb's and
// ixgbe's control vector, "eth0-3" sfc's queue 3); it may be "".
func ClassifyAction(action, netdev string) (role Role, queue int, dir Direction) {
	if netdev != "" {
		if action == netdev {
			return RoleControl, -1, DirUnknown
		}
		if n, ok := strings.CutPrefix(action, netdev+"-"); ok && isDigits(n) {
			if q, err := strconv.Atoi(n); err == nil {
				return RoleQueue, q, DirRXTX
			}
		}
	}
	for _, p := range namePatterns {
		m := p.re.FindStringSubmatch(action)
		if m == nil {
			continue
		}
		q := -1
		if len(m) > 1 && isDigits(m[1]) {
			if n, err := strconv.Atoi(m[1]); err == nil {
				q = n
			}
		}
		return p.role, q, p.dir
	}
	return RoleOther, -1, DirUnknown
}

// namesNetdev reports whether an action name refers to netdev by name:
// "eth0", "eth0-TxRx-3", "i40e-eth0-TxRx-3", but not "eth01-TxRx-3".
func namesNetdev(action, netdev string) bool {
	if netdev == "" {
		return false
	}
	if action == netdev || strings.HasPrefix(action, netdev+"-") || strings.HasPrefix(action, netdev+":") || strings.HasSuffix(action, "-"+netdev) {
		return true
	}
	return strings.Contains(action, "-"+netdev+"-")
}

// namesPCI reports whether an action name carries the PCI address:
// "mlx5_comp0@pci:0000:3b:00.0", "mlx4-1@0000:04:00.0",
// "i40e-0000:3b:00.0:misc", "hns3-0000:7d:00.0-TxRx-0".
func namesPCI(action, pci string) bool {
	if pci == "" {
		return false
	}
	return strings.Contains(action, "@pci:"+pci) || strings.Contains(action, "@"+pci) ||
		strings.Contains(action, "-"+pci+":") || strings.Contains(action, "-"+pci+"-")
}
