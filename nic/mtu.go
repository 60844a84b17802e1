package nic

import "fmt"

// The MTUs SetMTU accepts. The kernel's own bounds are per netdev
// (min_mtu, max_mtu); these are the widest any Ethernet-like netdev has,
// checked before netlink, which carries the MTU in 32 bits (an int above
// them would be cut, 1<<32+9000 becoming 9000).
const (
	MinMTU = 68    // IPv4's minimum (RFC 791), ETH_MIN_MTU
	MaxMTU = 65536 // lo's MTU; Ethernet stops at 65535 (ETH_MAX_MTU)
)

// checkMTU refuses an MTU outside MinMTU..MaxMTU with an *Error of kind
// ErrInvalidValue.
func checkMTU(op, netdev string, mtu int) error {
	if mtu < MinMTU || mtu > MaxMTU {
		return &Error{Op: op, Netdev: netdev, Kind: ErrInvalidValue, Err: fmt.Errorf("mtu %d outside %d..%d", mtu, MinMTU, MaxMTU)}
	}
	return nil
}
