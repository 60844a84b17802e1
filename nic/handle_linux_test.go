package nic

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Root tests: fresh namespaces with veth pairs on the host, addresses from
// 198.18.25.0/24.

func openIn(t *testing.T, tn *testNetns) *Handle {
	t.Helper()
	h, err := Open(Options{Netns: tn.Name})
	if err != nil {
		t.Fatalf("Open(netns %s): %v", tn.Name, err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func testCtx(t *testing.T) context.Context { return labtest.Context(t, time.Minute) }

// vethHandle makes the namespace nictest-SUFFIX-PID holding the veth pair
// ntv0 (198.18.25.1/24) and ntv1 (198.18.25.2/24), and a Handle on it.
func vethHandle(t *testing.T, suffix string) (*testNetns, *Handle, context.Context) {
	t.Helper()
	a := newNetns(t, suffix)
	vethPair(t, a, "ntv0", "198.18.25.1/24", a, "ntv1", "198.18.25.2/24")
	ctx := testCtx(t)
	return a, openIn(t, a), ctx
}

func TestRootMTU(t *testing.T) {
	a, h, ctx := vethHandle(t, "mtu")

	if got, err := h.MTU(ctx, "ntv0"); err != nil || got != 1500 {
		t.Fatalf("MTU = %d, %v", got, err)
	}
	old, err := h.SetMTU(ctx, "ntv0", 9000)
	if err != nil || old != 1500 {
		t.Fatalf("SetMTU(9000) = %d, %v; want 1500", old, err)
	}
	if got, _ := h.MTU(ctx, "ntv0"); got != 9000 {
		t.Errorf("after SetMTU(9000): MTU %d", got)
	}
	// The same value again changes nothing and returns it.
	if old, err := h.SetMTU(ctx, "ntv0", 9000); err != nil || old != 9000 {
		t.Errorf("SetMTU(9000) again = %d, %v", old, err)
	}
	// Above veth's maximum (65535), within MaxMTU: the kernel refuses it,
	// typed, errno kept, MTU unchanged.
	_, err = h.SetMTU(ctx, "ntv0", 65536)
	if !errors.Is(err, ErrInvalidValue) || !errors.Is(err, unix.EINVAL) {
		t.Errorf("SetMTU(65536) error = %v, want ErrInvalidValue", err)
	}
	if got, _ := h.MTU(ctx, "ntv0"); got != 9000 {
		t.Errorf("after a refused SetMTU: MTU %d", got)
	}
	// ip agrees.
	out, err := exec.CommandContext(ctx, "ip", "-n", a.Name, "-o", "link", "show", "ntv0").Output()
	if err != nil || !strings.Contains(string(out), " mtu 9000 ") {
		t.Errorf("ip link show: %q, %v", out, err)
	}
	// Restore.
	if old, err := h.SetMTU(ctx, "ntv0", 1500); err != nil || old != 9000 {
		t.Errorf("restore: SetMTU(1500) = %d, %v", old, err)
	}
	if _, err := h.MTU(ctx, "nosuch0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("MTU(nosuch0) error = %v", err)
	}
	if _, err := h.SetMTU(ctx, "nosuch0", 1500); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("SetMTU(nosuch0) error = %v", err)
	}
}

func TestRootSetUp(t *testing.T) {
	a := newNetns(t, "up")
	vethPair(t, a, "ntv0", "", a, "ntv1", "")
	ctx := testCtx(t)
	h := openIn(t, a)
	was, err := h.SetUp(ctx, "ntv0", false)
	if err != nil || !was {
		t.Fatalf("SetUp(down) = %v, %v; want it was up", was, err)
	}
	st, err := h.State(ctx, "ntv0")
	if err != nil || st.AdminUp || st.OperState != "down" {
		t.Errorf("after down: %+v, %v", st, err)
	}
	if was, err := h.SetUp(ctx, "ntv0", true); err != nil || was {
		t.Errorf("SetUp(up) = %v, %v; want it was down", was, err)
	}
	if st, _ := h.State(ctx, "ntv0"); !st.AdminUp {
		t.Errorf("after up: %+v", st)
	}
}

var ethtoolL = regexp.MustCompile(`(?s)Pre-set maximums:\s*RX:\s*(\S+)\s*TX:\s*(\S+).*Current hardware settings:\s*RX:\s*(\S+)\s*TX:\s*(\S+)`)

// ethtoolChannels reads `ethtool -l` in the namespace: max RX, TX, current
// RX, TX.
func ethtoolChannels(t *testing.T, ctx context.Context, ns, dev string) [4]uint32 {
	t.Helper()
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "ethtool", "-l", dev).CombinedOutput()
	m := ethtoolL.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("ethtool -l %s: %v\n%s", dev, err, out)
	}
	var v [4]uint32
	for i := range v {
		n, _ := strconv.Atoi(m[i+1])
		v[i] = uint32(n)
	}
	return v
}

func TestRootEthtoolVeth(t *testing.T) {
	a, h, ctx := vethHandle(t, "eth")

	di, err := h.Driver(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	if di.Driver != "veth" || di.Version != "1.0" || di.BusInfo != "" || di.NStats == 0 {
		t.Errorf("Driver = %+v", di)
	}
	ls, err := h.LinkSettings(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(LinkSettings{SpeedMbps: 10000, Duplex: DuplexFull, Port: "Twisted Pair", LinkDetected: true}, ls); d != "" {
		t.Errorf("LinkSettings (-want +got):\n%s", d)
	}

	// Channels: what ethtool -l says, set, verify, restore.
	ch, err := h.Channels(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	cli := ethtoolChannels(t, ctx, a.Name, "ntv0")
	if [4]uint32{ch.MaxRx, ch.MaxTx, ch.Rx, ch.Tx} != cli {
		t.Errorf("Channels = %+v, ethtool -l says max %d/%d current %d/%d", ch, cli[0], cli[1], cli[2], cli[3])
	}
	if ch.MaxRx >= 2 {
		two := uint32(2)
		old, err := h.SetChannels(ctx, "ntv0", ChannelsUpdate{Rx: &two, Tx: &two})
		if err != nil || old != ch {
			t.Fatalf("SetChannels(2,2) = %+v, %v; want old %+v", old, err, ch)
		}
		if got := ethtoolChannels(t, ctx, a.Name, "ntv0"); got[2] != 2 || got[3] != 2 {
			t.Errorf("after SetChannels(2,2): ethtool -l says %v", got)
		}
		if back, err := h.SetChannels(ctx, "ntv0", old.Update()); err != nil || back.Rx != 2 {
			t.Errorf("restore: %+v, %v", back, err)
		}
		if got, _ := h.Channels(ctx, "ntv0"); got != ch {
			t.Errorf("after restore: %+v, want %+v", got, ch)
		}
	} else {
		t.Logf("only %d channel(s): SetChannels up is not exercised", ch.MaxRx)
	}
	tooMany := ch.MaxRx + 1
	if _, err := h.SetChannels(ctx, "ntv0", ChannelsUpdate{Rx: &tooMany}); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("SetChannels(max+1) error = %v, want ErrInvalidValue", err)
	}

	// veth has no rings: typed, not a failure.
	_, err = h.Ring(ctx, "ntv0")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrNotSupported) || !errors.Is(err, unix.EOPNOTSUPP) || e.Op != "get ring" {
		t.Errorf("Ring error = %v, want ErrNotSupported", err)
	}
	n := uint32(512)
	if _, err := h.SetRing(ctx, "ntv0", RingUpdate{Rx: &n}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("SetRing error = %v, want ErrNotSupported", err)
	}

	// Features: toggle GRO and back; a fixed one is refused.
	fs, err := h.Features(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	gro, ok := fs["rx-gro"]
	if !ok || gro.Fixed {
		t.Fatalf("rx-gro = %+v, %v", gro, ok)
	}
	old, err := h.SetFeatures(ctx, "ntv0", map[string]bool{"rx-gro": !gro.Active})
	if err != nil || !cmp.Equal(old, map[string]bool{"rx-gro": gro.Active}) {
		t.Errorf("SetFeatures(rx-gro) = %v, %v", old, err)
	}
	if now, _ := h.Features(ctx, "ntv0"); now["rx-gro"].Active == gro.Active {
		t.Error("rx-gro did not change")
	}
	if _, err := h.SetFeatures(ctx, "ntv0", old); err != nil {
		t.Errorf("restore rx-gro: %v", err)
	}
	var fixed string
	for name, f := range fs {
		if f.Fixed && !f.Active {
			fixed = name
			break
		}
	}
	if _, err := h.SetFeatures(ctx, "ntv0", map[string]bool{fixed: true}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("SetFeatures(fixed %s on) error = %v, want ErrNotSupported", fixed, err)
	}
	if _, err := h.SetFeatures(ctx, "ntv0", map[string]bool{"no-such-feature": true}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("SetFeatures(unknown) error = %v", err)
	}

	if _, err := h.Driver(ctx, "nosuch0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("Driver(nosuch0) error = %v", err)
	}
	if _, err := h.Driver(ctx, "a-name-of-16-chr"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("Driver(16 chars) error = %v", err)
	}
}

// TestRootNamespaceIsolation: a Handle for the caller's namespace does not
// see a netdev of another one (and the ethtool socket is bound to its own).
func TestRootNamespaceIsolation(t *testing.T) {
	a := newNetns(t, "iso")
	vethPair(t, a, "ntiso0", "", a, "ntiso1", "")
	ctx := testCtx(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, _ := netns.Get()
	defer before.Close()

	here, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer here.Close()
	if _, err := here.MTU(ctx, "ntiso0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("caller's namespace: MTU error = %v", err)
	}
	if _, err := here.Driver(ctx, "ntiso0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("caller's namespace: Driver error = %v", err)
	}
	there := openIn(t, a)
	if di, err := there.Driver(ctx, "ntiso0"); err != nil || di.Driver != "veth" {
		t.Errorf("in %s: Driver = %+v, %v", a.Name, di, err)
	}
	after, _ := netns.Get()
	defer after.Close()
	if !after.Equal(before) {
		t.Error("Open moved the calling thread to another namespace")
	}
	if _, err := Open(Options{Netns: "nictest-missing"}); err == nil {
		t.Error("Open(missing netns): no error")
	}
}

// sendUDP sends n datagrams of size bytes from a's address to b's port,
// with sockets made inside each namespace; if read, the receiver reads them.
func sendUDP(t *testing.T, a *testNetns, from string, b *testNetns, to string, n, size, rcvbuf int, read bool) int {
	t.Helper()
	var rc *net.UDPConn
	b.Run(t, func() {
		var err error
		if rc, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(to)}); err != nil {
			t.Error(err)
			return
		}
		if rcvbuf > 0 {
			rc.SetReadBuffer(rcvbuf)
		}
	})
	if rc == nil {
		t.FailNow()
	}
	defer rc.Close()
	var sc *net.UDPConn
	a.Run(t, func() {
		var err error
		if sc, err = net.DialUDP("udp4", &net.UDPAddr{IP: net.ParseIP(from)}, rc.LocalAddr().(*net.UDPAddr)); err != nil {
			t.Error(err)
		}
	})
	if sc == nil {
		t.FailNow()
	}
	defer sc.Close()
	got := make(chan int, 1)
	if read {
		go func() {
			buf := make([]byte, 65536)
			k := 0
			for k < n {
				rc.SetReadDeadline(time.Now().Add(2 * time.Second))
				if _, err := rc.Read(buf); err != nil {
					break
				}
				k++
			}
			got <- k
		}()
	}
	msg := make([]byte, size)
	for i := 0; i < n; i++ {
		if _, err := sc.Write(msg); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if read && i%64 == 63 {
			time.Sleep(time.Millisecond) // let the reader keep up
		}
	}
	if !read {
		// Keep the receiver open until the datagrams in flight arrived
		// (closed, they would count as NoPorts).
		time.Sleep(200 * time.Millisecond)
		return 0
	}
	return <-got
}

// TestRootStatsAfterTraffic sends real UDP traffic over a veth pair between
// two namespaces and checks the counter deltas on both ends.
func TestRootStatsAfterTraffic(t *testing.T) {
	a, b := newNetns(t, "sa"), newNetns(t, "sb")
	vethPair(t, a, "ntv0", "198.18.25.1/24", b, "ntv1", "198.18.25.2/24")
	ctx := testCtx(t)
	ha, hb := openIn(t, a), openIn(t, b)

	s0a, err := ha.Stats(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	s0b, _ := hb.Stats(ctx, "ntv1")
	u0b, err := hb.UDP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 500
	recv := sendUDP(t, a, "198.18.25.1", b, "198.18.25.2", n, 1000, 0, true)
	if recv < n*9/10 {
		t.Fatalf("received %d of %d", recv, n)
	}
	s1a, _ := ha.Stats(ctx, "ntv0")
	s1b, _ := hb.Stats(ctx, "ntv1")
	u1b, _ := hb.UDP(ctx)

	da, err := s1a.Sub(s0a)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := s1b.Sub(s0b)
	tx, _ := da.Get(SourceLink, "tx_packets")
	txBytes, _ := da.Get(SourceLink, "tx_bytes")
	rx, _ := db.Get(SourceLink, "rx_packets")
	if tx.Delta < n || rx.Delta < uint64(recv) || txBytes.Delta < n*1000 {
		t.Errorf("tx_packets +%d, tx_bytes +%d, peer rx_packets +%d; sent %d, received %d", tx.Delta, txBytes.Delta, rx.Delta, n, recv)
	}
	// veth's driver counters exist (they count XDP only, so they stay).
	if len(s1a.Ethtool) == 0 || s1a.Ethtool["peer_ifindex"] == 0 {
		t.Errorf("ethtool counters: %v", s1a.Ethtool)
	}
	ud := u1b.Sub(u0b)
	if ud.InDatagrams != uint64(recv) && ud.InDatagrams < uint64(recv) {
		t.Errorf("UDP InDatagrams +%d, received %d", ud.InDatagrams, recv)
	}
	t.Logf("ntv0 %d counters, losses %v; ntv1 losses %v; UDP %+v", len(da.Counters), da.Losses(), db.Losses(), ud)
}

// TestRootUDPLoss fills a small receive buffer that nobody reads: the
// datagrams lost show up as RcvbufErrors of the receiver's namespace only.
func TestRootUDPLoss(t *testing.T) {
	a, b := newNetns(t, "la"), newNetns(t, "lb")
	vethPair(t, a, "ntv0", "198.18.25.1/24", b, "ntv1", "198.18.25.2/24")
	ctx := testCtx(t)
	ha, hb := openIn(t, a), openIn(t, b)
	if _, err := hb.UDP(ctx); err != nil {
		t.Fatal(err)
	}
	// A short exchange first resolves the peer's MAC address; datagrams
	// waiting for it would be dropped before reaching the receiver.
	if got := sendUDP(t, a, "198.18.25.1", b, "198.18.25.2", 5, 100, 0, true); got != 5 {
		t.Fatalf("warm-up: received %d of 5", got)
	}
	ua0, _ := ha.UDP(ctx)
	ub0, _ := hb.UDP(ctx)
	sendUDP(t, a, "198.18.25.1", b, "198.18.25.2", 2000, 1400, 4096, false)
	ua1, _ := ha.UDP(ctx)
	ub1, _ := hb.UDP(ctx)
	lb := ub1.Sub(ub0).Loss()
	if lb.ReceiveBuffer == 0 || lb.ReceiveBuffer > 2000 || lb.OtherIn != 0 {
		t.Errorf("receiver loss %+v", lb)
	}
	da := ua1.Sub(ua0)
	if da.OutDatagrams < 2000 || da.Loss().Total() != 0 {
		t.Errorf("sender side %+v", da)
	}
	t.Logf("receiver: %+v; delta %+v; sender %+v", lb, ub1.Sub(ub0), da)
}

func TestRootSnapshot(t *testing.T) {
	a, h, ctx := vethHandle(t, "snap")
	s, err := h.Snapshot(ctx, "ntv0")
	if err != nil {
		t.Fatal(err)
	}
	if s.MTU != 1500 || s.RoCEPathMTU != 1024 || s.Driver.Driver != "veth" || s.Ring != nil || s.Channels == nil ||
		s.Link == nil || len(s.Features) == 0 || s.Stats.Link["tx_packets"] == 0 && s.Stats.Link == nil || s.UDP == nil ||
		!s.Device.Virtual || !s.State.AdminUp || s.Netns != a.Name {
		t.Errorf("Snapshot = %+v", s)
	}
	if d := cmp.Diff([]string{"ring: not supported by the driver"}, warnjson.Strings(s.Warnings)); d != "" {
		t.Errorf("Warnings (-want +got):\n%s", d)
	}
	if len(s.Warnings) != 1 || !errors.Is(s.Warnings[0], ErrNotSupported) {
		t.Errorf("the ring warning does not unwrap to ErrNotSupported: %#v", s.Warnings)
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"warnings":["ring: not supported by the driver"]`) {
		t.Errorf("JSON: %s, %v", b, err)
	}
	if _, err := h.Snapshot(ctx, "nosuch0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("Snapshot(nosuch0) error = %v", err)
	}
}
