package rxe

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNetdevDown: the netdev under an rxe link is down (administratively,
// or up without a carrier), so its port cannot become ACTIVE. Errors of
// this kind are *NetdevDownError.
var ErrNetdevDown = errors.New("rxe: netdev is down")

// CarrierGrace is how long a netdev that is up but has no carrier is given
// to get one (a NIC negotiates its link for a second or two after "ip link
// set up") before waiting for its port to become ACTIVE stops.
const CarrierGrace = 5 * time.Second

// NetdevDownError says why an rxe port cannot become ACTIVE: the netdev's
// state and what to do. errors.Is(err, ErrNetdevDown) matches it.
type NetdevDownError struct {
	Netdev string
	// Netns is the network namespace the netdev is in ("" the caller's),
	// for the remedy's command.
	Netns string
	// AdminUp is the netdev's IFF_UP; OperState its RFC 2863 state as
	// "ip link" prints it, lower case ("down", "lowerlayerdown").
	AdminUp   bool
	OperState string
}

// Error names the netdev, its state and the remedy.
func (e *NetdevDownError) Error() string {
	state := "administratively down"
	if e.AdminUp {
		state = "up but without a carrier"
	}
	return fmt.Sprintf("rxe: netdev %s is %s (operstate %s): its RDMA port cannot become ACTIVE; %s", e.Netdev, state, e.OperState, e.Remedy())
}

// Is matches ErrNetdevDown.
func (e *NetdevDownError) Is(target error) bool { return target == ErrNetdevDown }

// Remedy is the command or check that brings the netdev up.
func (e *NetdevDownError) Remedy() string {
	ip := "ip"
	if e.Netns != "" {
		ip = "ip -n " + e.Netns
	}
	if !e.AdminUp {
		return fmt.Sprintf("bring it up: %s link set %s up", ip, e.Netdev)
	}
	return fmt.Sprintf("bring up what it sits on (a veth's peer: %s link set PEER up; a VLAN's or bond's lower device), or check the cable and the switch port (ethtool %s | grep 'Link detected')", ip, e.Netdev)
}

// NetdevUp judges a netdev's state for an rxe port: ready when it can
// carry traffic (operstate "up", or "unknown" as dummy and tun devices
// report), else a *NetdevDownError. A netdev that is up without a carrier
// is not ready but only an error once CarrierGrace has passed since the
// wait began (since): callers poll.
func NetdevUp(netns, netdev string, adminUp bool, operState string, since, now time.Time) (ready bool, err error) {
	// vishvananda/netlink says "lower-layer-down" where ip says
	// LOWERLAYERDOWN.
	op := strings.ReplaceAll(strings.ToLower(operState), "-", "")
	switch {
	case !adminUp:
	case op == "up" || op == "unknown" || op == "":
		return true, nil
	case now.Sub(since) < CarrierGrace:
		return false, nil
	}
	return false, &NetdevDownError{Netdev: netdev, Netns: netns, AdminUp: adminUp, OperState: op}
}
