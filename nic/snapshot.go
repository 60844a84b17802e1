package nic

import "time"

// LinkState is a netdev's administrative and operational state.
type LinkState struct {
	AdminUp   bool   `json:"admin_up"`   // IFF_UP: set by ip link set up
	OperState string `json:"oper_state"` // "up", "down", "unknown", ... (RFC 2863)
}

// Snapshot is everything the NIC runbook records about a netdev before and
// after a round, for reports. Parts a driver does not support are nil and
// named in Warnings.
type Snapshot struct {
	Netdev      string             `json:"netdev"`
	Netns       string             `json:"netns,omitempty"`
	Time        time.Time          `json:"time"`
	MTU         int                `json:"mtu"`
	RoCEPathMTU int                `json:"roce_path_mtu"` // RoCEPathMTU(MTU)
	State       LinkState          `json:"state"`
	Driver      DriverInfo         `json:"driver"`
	Link        *LinkSettings      `json:"link,omitempty"`
	Ring        *Ring              `json:"ring,omitempty"`
	Channels    *Channels          `json:"channels,omitempty"`
	Features    map[string]Feature `json:"features,omitempty"`
	Stats       Stats              `json:"stats"`
	Device      DeviceInfo         `json:"device"`
	UDP         *UDPCounters       `json:"udp,omitempty"` // of the whole namespace
	Warnings    []string           `json:"warnings,omitempty"`
}
