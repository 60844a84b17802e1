package rxe

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestNetdevUp: admin down is an error at once; up without a carrier only
// after CarrierGrace; up and unknown (dummy) are fine. The error names the
// netdev, its operstate and the command.
func TestNetdevUp(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ready, err := NetdevUp("ns1", "v0", false, "down", t0, t0)
	var e *NetdevDownError
	if !errors.Is(err, ErrNetdevDown) || !errors.As(err, &e) || e.Netdev != "v0" || e.OperState != "down" ||
		err.Error() != "rxe: netdev v0 is administratively down (operstate down): its RDMA port cannot become ACTIVE; bring it up: ip -n ns1 link set v0 up" {
		t.Fatalf("admin down: %v", err)
	}
	if ready {
		t.Error("admin down is ready")
	}
	for _, op := range []string{"up", "unknown", "UP"} {
		if ready, err := NetdevUp("", "v0", true, op, t0, t0.Add(time.Hour)); err != nil || !ready {
			t.Errorf("%s: %v %v", op, ready, err)
		}
	}
	if ready, err := NetdevUp("", "v0", true, "lowerlayerdown", t0, t0.Add(CarrierGrace-time.Millisecond)); err != nil || ready {
		t.Errorf("in grace: %v %v", ready, err)
	}
	_, err = NetdevUp("", "v0", true, "lower-layer-down", t0, t0.Add(CarrierGrace))
	if !errors.As(err, &e) || !e.AdminUp || !strings.Contains(err.Error(), "up but without a carrier (operstate lowerlayerdown)") ||
		!strings.Contains(err.Error(), "ip link set PEER up") {
		t.Errorf("no carrier: %v", err)
	}
}
