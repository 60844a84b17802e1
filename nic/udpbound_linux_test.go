package nic

import (
	"context"
	"net"
	"testing"
)

// TestUDPBoundInNetns: a socket bound to UDP 4791 in a fresh namespace (as
// rdma_rxe binds its RoCE v2 socket) is listed by a Handle in that
// namespace, with its address, and not by one in the caller's.
func TestUDPBoundInNetns(t *testing.T) {
	tn := newNetns(t, "udpb")
	var c *net.UDPConn
	tn.Run(t, func() {
		var err error
		if c, err = net.ListenUDP("udp4", &net.UDPAddr{Port: 4791}); err != nil {
			t.Error(err)
		}
	})
	if c == nil {
		t.FailNow()
	}
	defer c.Close()
	has := func(opts Options) bool {
		t.Helper()
		h, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		socks, err := h.UDPBound(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range socks {
			if s.Local.Port() == 4791 && s.Local.Addr().IsUnspecified() && s.Inode != 0 {
				return true
			}
		}
		return false
	}
	if !has(Options{Netns: tn.Name}) {
		t.Error("UDP 4791 not listed in its namespace")
	}
	if has(Options{}) {
		t.Error("UDP 4791 listed in the caller's namespace")
	}
}
