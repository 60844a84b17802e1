package rxe

import "github.com/rocekit/rocekit/sysroot"

// Link is an RDMA device as the kernel reports it over netlink, with the
// state of its ports.
//
// Similar to: rdma dev show NAME; rdma link show NAME/
type Link struct {
	Name            string `json:"name"`
	Index           uint32 `json:"index"`
	NodeGUID        GUID   `json:"node_guid"`
	SysImageGUID    GUID   `json:"sys_image_guid"`
	FirmwareVersion string `json:"fw_ver,omitempty"`
	Ports           []Port `json:"ports"`
}

// Active reports whether the link has ports and all of them are ACTIVE with
// LINK_UP.
func (l Link) Active() bool {
	if len(l.Ports) == 0 {
		return false
	}
	for _, p := range l.Ports {
		if !p.Active() {
			return false
		}
	}
	return true
}

// Netdev returns the netdev of the first port that names one.
func (l Link) Netdev() string {
	for _, p := range l.Ports {
		if p.Netdev != "" {
			return p.Netdev
		}
	}
	return ""
}

// Options choose where a Handle acts: the same two fields as nic.Options
// and runbook.Local.
type Options struct {
	// Netns is a named network namespace (/run/netns/NAME, as made by
	// `ip netns add`); "" is the caller's. rxe links are created on a netdev
	// of this namespace.
	Netns string
	// Root is where the Handle's Root reads /sys/class/infiniband and
	// /proc; the zero Root is the live system.
	Root sysroot.Root
}
