package runbook

import (
	"context"
	"net"
	"os"
	"testing"
	"time"
)

// udpOverflow opens a UDP socket on loopback with the kernel's smallest
// receive buffer, and a sender to it; send overflows it.
func udpOverflow(t *testing.T) (rcv, snd *net.UDPConn, send func()) {
	t.Helper()
	rcv, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rcv.SetReadBuffer(1); err != nil {
		t.Fatal(err)
	}
	snd, err = net.DialUDP("udp4", nil, rcv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	return rcv, snd, func() {
		msg := make([]byte, 1400)
		for range 300 {
			snd.Write(msg)
		}
	}
}

// TestWatchUDPSocketsUntilClosed: the agent's watch of a process's UDP
// sockets (this test's: a receiver that nobody reads, overflowed) ends by
// itself once they closed, with the drops of their last reading and the
// namespace's Udp counters read with them.
func TestWatchUDPSocketsUntilClosed(t *testing.T) {
	rcv, snd, send := udpOverflow(t)
	send()
	go func() {
		// Long enough for the watch's first reading on a loaded machine
		// (at 300 ms it once missed them under load 10).
		time.Sleep(2 * time.Second)
		rcv.Close()
		snd.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := (&Local{}).WatchUDPSockets(ctx, UDPWatchAsk{PID: os.Getpid(), Every: 10 * time.Millisecond, Max: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var drops uint64
	for _, s := range w.Last {
		drops += s.Drops
	}
	if !w.Closed || len(w.Last) != 2 || drops == 0 || w.Samples < 2 || w.Counters == nil || w.Counters.RcvbufErrors < drops || w.Error != "" {
		t.Errorf("watch %+v: want closed, 2 sockets with drops, Udp counters read", w)
	}
	if _, err := (&Local{}).WatchUDPSockets(ctx, UDPWatchAsk{}); err == nil {
		t.Error("a watch of pid 0 started")
	}
}
