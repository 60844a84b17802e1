package nic

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
)

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
	Driver      Driver             `json:"driver"`
	Link        *LinkSettings      `json:"link,omitempty"`
	Ring        *Ring              `json:"ring,omitempty"`
	Channels    *Channels          `json:"channels,omitempty"`
	Features    map[string]Feature `json:"features,omitempty"`
	Stats       Stats              `json:"stats"`
	Device      Device             `json:"device"`
	UDP         *UDPCounters       `json:"udp,omitempty"` // of the whole namespace
	// Warnings are the parts that could not be read; each unwraps to
	// its cause (errors.Is(w, ErrNotSupported)). JSON has their messages.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// partError is a part of a Snapshot that could not be read: "ring: not
// supported by the driver".
type partError struct {
	part string
	err  error
}

// Error names the part and the kind of failure (or the cause, when it
// has none).
func (e partError) Error() string {
	var ne *Error
	if errors.As(e.err, &ne) && ne.Kind != nil {
		return fmt.Sprintf("%s: %s", e.part, strings.TrimPrefix(ne.Kind.Error(), "nic: "))
	}
	return fmt.Sprintf("%s: %v", e.part, e.err)
}

// Unwrap returns the cause.
func (e partError) Unwrap() error { return e.err }
