//go:build lab

package rxe

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netlink"
)

// TestLabWaitActiveNetdevDown: an rxe link on a veth that is then set
// down; WaitActive returns the typed error naming the veth, its operstate
// and "ip link set rxd0 up" while its context has an hour left, instead of
// waiting for ACTIVE until then.
func TestLabWaitActiveNetdevDown(t *testing.T) {
	labtest.Guest(t)
	ctx := labContext(t)
	h := openLab(t, ctx)
	newVeth(t, "rxd0", "rxd1", "198.18.23.1/24")
	if _, err := h.AddLink(ctx, "rxedown0", "rxd0"); err != nil {
		t.Fatalf("AddLink: %v", err)
	}
	deleteOnCleanup(t, h, "rxedown0")
	if _, err := h.WaitActive(ctx, "rxedown0"); err != nil {
		t.Fatalf("WaitActive while up: %v", err)
	}
	v, err := netlink.LinkByName("rxd0")
	if err != nil {
		t.Fatal(err)
	}
	if err := netlink.LinkSetDown(v); err != nil {
		t.Fatal(err)
	}
	long, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err = h.WaitActive(long, "rxedown0")
	var e *NetdevDownError
	if !errors.Is(err, ErrNetdevDown) || !errors.As(err, &e) || e.Netdev != "rxd0" || e.AdminUp || e.OperState != "down" ||
		e.Remedy() != "bring it up: ip link set rxd0 up" {
		t.Fatalf("WaitActive on a down netdev: %v", err)
	}
	if long.Err() != nil {
		t.Fatal("the context ended")
	}
}
