package rxe

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParsePortState(t *testing.T) {
	for in, want := range map[string]PortState{"4: ACTIVE\n": PortActive, "1: DOWN": PortDown, "2: INIT\n": PortInit, "5: ACTIVE_DEFER": PortActiveDefer} {
		got, err := ParsePortState(in)
		if err != nil || got != want {
			t.Errorf("ParsePortState(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]PhysState{"5: LinkUp\n": PhysLinkUp, "3: Disabled\n": PhysDisabled, "2: Polling": PhysPolling} {
		got, err := ParsePhysState(in)
		if err != nil || got != want {
			t.Errorf("ParsePhysState(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ACTIVE", "x: ACTIVE", "9: WHAT", "-1: X", "300: X"} {
		if _, err := ParsePortState(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParsePortState(%q) error = %v", in, err)
		}
	}
	if _, err := ParsePhysState("8: X"); !errors.Is(err, ErrParse) {
		t.Errorf("ParsePhysState(8) error = %v", err)
	}
}

func TestPortString(t *testing.T) {
	// The exact text of `rdma link show` in testdata/*/capture.txt.gz, minus
	// its trailing space.
	for p, want := range map[Port]string{
		{Device: "rxe0", Port: 1, State: PortActive, PhysState: PhysLinkUp, Netdev: "v0"}: "link rxe0/1 state ACTIVE physical_state LINK_UP netdev v0",
		{Device: "rxe0", Port: 1, State: PortDown, PhysState: PhysDisabled, Netdev: "v0"}: "link rxe0/1 state DOWN physical_state DISABLED netdev v0",
		{Device: "mlx5_0", Port: 1, State: PortInit, PhysState: PhysPolling}:              "link mlx5_0/1 state INIT physical_state POLLING",
		{Device: "x", Port: 2, State: PortState(9), PhysState: PhysState(9), Netdev: "e"}: "link x/2 state PortState(9) physical_state PhysState(9) netdev e",
	} {
		if got := p.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func FuzzParsePortState(f *testing.F) {
	f.Add("4: ACTIVE\n")
	f.Add("5: LinkUp\n")
	f.Add("")
	f.Add("255: x")
	f.Fuzz(func(t *testing.T, s string) {
		if st, err := ParsePortState(s); err == nil && st.String() == "" {
			t.Fatal("empty name")
		}
		if st, err := ParsePhysState(s); err == nil && st.String() == "" {
			t.Fatal("empty name")
		}
	})
}

// TestPortJSONRoundTrip: a Port crosses JSON (runbook.Host over the
// peer protocol) with its states, unknown numbers included; a bad name is
// ErrParse.
func TestPortJSONRoundTrip(t *testing.T) {
	for _, p := range []Port{{Device: "rxe0", Port: 1, State: PortActive, PhysState: PhysLinkUp, Netdev: "eth0"},
		{Device: "rxe1", Port: 1, State: PortDown, PhysState: PhysDisabled}, {Device: "x", Port: 2, State: PortState(9), PhysState: PhysState(12)}} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got Port
		if err := json.Unmarshal(b, &got); err != nil || got != p {
			t.Errorf("%s: got %+v, %v", b, got, err)
		}
	}
	var s PortState
	if err := s.UnmarshalText([]byte("UPISH")); !errors.Is(err, ErrParse) {
		t.Errorf("bad name: %v", err)
	}
}
