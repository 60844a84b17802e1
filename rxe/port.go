package rxe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/internal/sysfs"
)

// PortState is the logical state of an RDMA port (IB spec; sysfs "4: ACTIVE").
type PortState uint8

// Port states.
const (
	PortNOP PortState = iota
	PortDown
	PortInit
	PortArmed
	PortActive
	PortActiveDefer
)

var portStateNames = []string{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"}

// String returns the name `rdma link show` prints ("ACTIVE").
func (s PortState) String() string {
	if int(s) < len(portStateNames) {
		return portStateNames[s]
	}
	return fmt.Sprintf("PortState(%d)", uint8(s))
}

// MarshalText returns the name `rdma link show` prints.
func (s PortState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText wrote, so a Port crosses JSON (the
// peer protocol) both ways.
func (s *PortState) UnmarshalText(b []byte) error {
	n, err := stateByName(string(b), portStateNames, "port state")
	*s = PortState(n)
	return err
}

// PhysState is the physical state of an RDMA port (sysfs "5: LinkUp").
type PhysState uint8

// Physical port states.
const (
	PhysNOP PhysState = iota
	PhysSleep
	PhysPolling
	PhysDisabled
	PhysTraining
	PhysLinkUp
	PhysLinkErrorRecovery
	PhysPHYTest
)

var physStateNames = []string{"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP", "LINK_ERROR_RECOVER", "PHY_TEST"}

// String returns the name `rdma link show` prints ("LINK_UP").
func (s PhysState) String() string {
	if int(s) < len(physStateNames) {
		return physStateNames[s]
	}
	return fmt.Sprintf("PhysState(%d)", uint8(s))
}

// MarshalText returns the name `rdma link show` prints.
func (s PhysState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (s *PhysState) UnmarshalText(b []byte) error {
	n, err := stateByName(string(b), physStateNames, "physical port state")
	*s = PhysState(n)
	return err
}

// stateByName finds a state's number by its name, or by the number
// String gives an unknown one ("PortState(9)").
func stateByName(name string, names []string, what string) (uint8, error) {
	for i, n := range names {
		if n == name {
			return uint8(i), nil
		}
	}
	if _, num, ok := strings.Cut(strings.TrimSuffix(name, ")"), "("); ok {
		if v, err := strconv.ParseUint(num, 10, 8); err == nil {
			return uint8(v), nil
		}
	}
	return 0, parseError(what, name, fmt.Errorf("unknown name"))
}

// ParsePortState parses a port's sysfs state file ("4: ACTIVE").
func ParsePortState(s string) (PortState, error) {
	n, err := parseNumberedState(s, "port state", len(portStateNames))
	return PortState(n), err
}

// ParsePhysState parses a port's sysfs phys_state file ("5: LinkUp").
func ParsePhysState(s string) (PhysState, error) {
	n, err := parseNumberedState(s, "physical port state", len(physStateNames))
	return PhysState(n), err
}

// parseNumberedState reads the number before the colon of "N: NAME".
func parseNumberedState(s, what string, limit int) (uint8, error) {
	num, _, ok := strings.Cut(sysfs.TrimNewline(s), ":")
	if !ok {
		return 0, parseError(what, s, fmt.Errorf("no ':'"))
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 8)
	if err != nil {
		return 0, parseError(what, s, err)
	}
	if int(n) >= limit {
		return 0, parseError(what, s, fmt.Errorf("unknown state %d", n))
	}
	return uint8(n), nil
}

// Port is the state of one RDMA port, as `rdma link show` prints it:
// "link rxe0/1 state ACTIVE physical_state LINK_UP netdev v0".
type Port struct {
	Device      string    `json:"device"`
	Port        int       `json:"port"`
	State       PortState `json:"state"`
	PhysState   PhysState `json:"physical_state"`
	Netdev      string    `json:"netdev,omitempty"`
	NetdevIndex int       `json:"netdev_index,omitempty"` // from netlink only
	LinkLayer   string    `json:"link_layer,omitempty"`   // "Ethernet", "InfiniBand"; from sysfs only
}

// Active reports whether the port is ACTIVE with its link up: ready for
// traffic.
func (p Port) Active() bool { return p.State == PortActive && p.PhysState == PhysLinkUp }

// String formats p like `rdma link show`.
func (p Port) String() string {
	s := fmt.Sprintf("link %s/%d state %s physical_state %s", p.Device, p.Port, p.State, p.PhysState)
	if p.Netdev != "" {
		s += " netdev " + p.Netdev
	}
	return s
}
