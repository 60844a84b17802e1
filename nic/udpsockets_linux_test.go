package nic

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// A UDP socket of this process with a small receive buffer, flooded over
// loopback and never read: the kernel drops what does not fit, and the
// socket's own drop count says so beside Udp RcvbufErrors.
func TestUDPSocketsDrops(t *testing.T) {
	rx, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	if err := rx.SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	tx, err := net.DialUDP("udp4", nil, rx.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	before, err := Root{}.SNMP()
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 1000)
	for range 500 {
		if _, err := tx.Write(msg); err != nil && err.(*net.OpError).Err != syscall.ECONNREFUSED {
			t.Fatal(err)
		}
	}
	socks, err := Root{}.UDPSockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	after, err := Root{}.SNMP()
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(rx.LocalAddr().(*net.UDPAddr).Port)
	var got *UDPSocket
	for i := range socks {
		if socks[i].Local.Port() == port {
			got = &socks[i]
		}
	}
	if got == nil || len(socks) != 2 {
		t.Fatalf("sockets %+v: want the receiver on port %d and the sender", socks, port)
	}
	ub, _ := before.UDP()
	ua, _ := after.UDP()
	rcvbuf := ua.RcvbufErrors - ub.RcvbufErrors
	t.Logf("socket %+v; Udp RcvbufErrors +%d", *got, rcvbuf)
	if got.Drops == 0 || got.RxQueueBytes == 0 || got.Local.Addr().String() != "127.0.0.1" {
		t.Errorf("socket %+v: want drops and a queue", *got)
	}
	// Other processes can only add to the host's counter.
	if rcvbuf < got.Drops {
		t.Errorf("Udp RcvbufErrors rose %d, fewer than the socket's %d drops", rcvbuf, got.Drops)
	}
	if _, err := (Root{}).UDPSockets(-1); err == nil {
		t.Error("pid -1 accepted")
	}
	// Read again by the inode alone: the same socket, its drops not fewer.
	again, err := Root{}.UDPSocketsIn(os.Getpid(), []uint64{got.Inode})
	if err != nil || len(again) != 1 || again[0].Inode != got.Inode || again[0].Local != got.Local || again[0].Drops < got.Drops {
		t.Errorf("UDPSocketsIn(inode %d) = %+v, %v; want the receiver again", got.Inode, again, err)
	}
	if none, err := (Root{}).UDPSocketsIn(os.Getpid(), []uint64{1}); err != nil || len(none) != 0 {
		t.Errorf("an inode no socket has: %+v, %v", none, err)
	}
}
