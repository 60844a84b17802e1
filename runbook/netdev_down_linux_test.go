package runbook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/vishvananda/netlink"
)

// TestPrepareRXENetdevDown: PrepareRXE on a netdev that is down returns
// the typed error at once, naming the netdev, its operstate and the
// command, while the context's deadline is an hour away (before, it waited
// for ACTIVE until -timeout). A dummy and a veth, both administratively
// down; then the veth up with its peer down (no carrier), which fails
// after rxe.CarrierGrace. Nothing about time is asserted: an hour-long
// wait would end the test by its own -timeout, not pass it.
func TestPrepareRXENetdevDown(t *testing.T) {
	ns := fmt.Sprintf("rbdown-%d", os.Getpid())
	_, nl := labtest.Netns(t, ns)
	if err := nl.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "dv0"}, PeerName: "dv1"}); err != nil {
		t.Fatal(err)
	}
	devs := []string{"dv0"}
	// A dummy too where the kernel has it (this host's has no dummy module).
	if err := nl.LinkAdd(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: "dd0"}}); err == nil {
		devs = append(devs, "dd0")
	} else {
		t.Logf("no dummy netdev: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	side := &Local{Netns: ns, Journal: t.TempDir() + "/j.jsonl"}
	defer side.Restore(context.Background())
	for _, dev := range devs {
		_, err := side.PrepareRXE(ctx, RXEConfig{Netdev: dev, Name: "rxedown0", MTU: 4200})
		var e *rxe.NetdevDownError
		if !errors.Is(err, rxe.ErrNetdevDown) || !errors.As(err, &e) || e.Netdev != dev || e.AdminUp || e.OperState != "down" {
			t.Fatalf("%s: err %v, want *rxe.NetdevDownError (admin down)", dev, err)
		}
		want := "bring it up: ip -n " + ns + " link set " + dev + " up"
		if !strings.Contains(err.Error(), "netdev "+dev+" is administratively down (operstate down)") || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v", dev, err)
		}
		if ctx.Err() != nil {
			t.Fatal("the context ended")
		}
	}
	// Nothing was changed: no MTU set, no journal begun.
	if l, err := nl.LinkByName("dv0"); err != nil || l.Attrs().MTU != 1500 {
		t.Errorf("dv0 MTU changed: %v", err)
	}
	if _, err := os.Stat(side.Journal); !os.IsNotExist(err) {
		t.Errorf("a journal was begun: %v", err)
	}
	// Up, but its peer is down: no carrier (lowerlayerdown).
	v, err := nl.LinkByName("dv0")
	if err != nil {
		t.Fatal(err)
	}
	if err := nl.LinkSetUp(v); err != nil {
		t.Fatal(err)
	}
	_, err = side.PrepareRXE(ctx, RXEConfig{Netdev: "dv0"})
	var e *rxe.NetdevDownError
	if !errors.As(err, &e) || !e.AdminUp || e.OperState != "lowerlayerdown" || !strings.Contains(err.Error(), "ip -n "+ns+" link set PEER up") {
		t.Fatalf("no carrier: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the context ended")
	}
}

// TestPrepareRXEMissingNetdevUnchanged: a netdev that does not exist is
// not judged "down": PrepareRXE reports it as before (rdma_rxe's absence
// on this host, or the link's creation).
func TestPrepareRXEMissingNetdevUnchanged(t *testing.T) {
	ns := fmt.Sprintf("rbmiss-%d", os.Getpid())
	labtest.Netns(t, ns)
	side := &Local{Netns: ns, Journal: t.TempDir() + "/j.jsonl"}
	defer side.Restore(context.Background())
	_, err := side.PrepareRXE(context.Background(), RXEConfig{Netdev: "nosuch0"})
	if err == nil || errors.Is(err, rxe.ErrNetdevDown) {
		t.Fatalf("err %v", err)
	}
}
