package workflow

import (
	"context"
	"net"
	"os"
	"testing"

	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/runbook"
)

// TestLocalSocketsDrops overflows a real UDP socket of this process on
// loopback (a tiny receive buffer nobody reads) and reads its drops back
// the way a round reads netserver's: by pid, through /proc/PID/net/udp,
// once directly and once through a watch that samples it.
func TestLocalSocketsDrops(t *testing.T) {
	rcv, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rcv.Close()
	if err := rcv.SetReadBuffer(1); err != nil { // the kernel's minimum
		t.Fatal(err)
	}
	snd, err := net.DialUDP("udp4", nil, rcv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer snd.Close()
	r := &runbook.Local{}
	if !canWatch(r) {
		t.Fatal("a Local's sockets cannot be watched")
	}
	w := watchSockets(context.Background(), r, os.Getpid())
	msg := make([]byte, 1400)
	for range 500 {
		snd.Write(msg)
	}
	socks, err := r.UDPSockets(context.Background(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(rcv.LocalAddr().(*net.UDPAddr).Port)
	var drops uint64
	found := false
	for _, s := range socks {
		if s.Local.Port() == port {
			found, drops = true, s.Drops
		}
	}
	if !found || drops == 0 {
		t.Fatalf("sockets %+v: want port %d with drops", socks, port)
	}
	got := w.stop(nic.UDPCounters{}, true)
	// RcvbufErrors are the namespace's (this one is shared): at least ours.
	if got.Samples == 0 || got.Sockets < 2 || got.Drops < drops || got.Error != "" || !got.CountersRead || got.RcvbufErrors < got.Drops {
		t.Errorf("watch %+v: want both sockets, at least %d drops and RcvbufErrors read with them", got, drops)
	}
	if _, err := r.UDPSockets(context.Background(), 0); err == nil {
		t.Error("pid 0 read")
	}
}
