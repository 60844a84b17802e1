//go:build lab

package rxe

import (
	"context"
	"errors"
	"net/netip"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

func labContext(t *testing.T) context.Context { return labtest.Context(t, 3*time.Minute) }

// openLab loads rdma_rxe and opens a Handle in the caller's namespace.
func openLab(t *testing.T, ctx context.Context) *Handle {
	t.Helper()
	if _, err := LoadModule(ctx, Root{}, nil); err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	st, err := Root{}.RXEModule()
	if err != nil || !st.Loaded || !st.Usable() {
		t.Fatalf("after LoadModule: %+v, %v", st, err)
	}
	h, err := Open(Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// deleteOnCleanup removes an rxe link the test made, if it still exists.
func deleteOnCleanup(t *testing.T, h *Handle, name string) {
	t.Cleanup(func() {
		if _, err := h.DeleteLink(context.Background(), name); err != nil && !errors.Is(err, ErrDeviceNotFound) {
			t.Errorf("cleanup: delete %s: %v", name, err)
		}
	})
}

// labLink starts a lab test that needs an rxe link and does not check its
// creation: rdma_rxe loaded, a veth netdev/peer with addr on netdev (see
// newVeth), and the rxe link name on netdev, deleted when the test ends.
func labLink(t *testing.T, name, netdev, peer, addr string) (context.Context, *Handle) {
	t.Helper()
	labtest.Guest(t)
	ctx := labContext(t)
	h := openLab(t, ctx)
	newVeth(t, netdev, peer, addr)
	if _, err := h.AddLink(ctx, name, netdev); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, h, name)
	return ctx, h
}

func isRoCEv2IPv4(addr string) func(GIDEntry) bool {
	want := netip.MustParseAddr(addr)
	return func(e GIDEntry) bool {
		ip, ok := e.IPv4()
		return ok && ip == want && e.Type == GIDTypeRoCEv2
	}
}

// TestLabLinkLifecycle is the runbook: rxe on a veth, wait ACTIVE, the RoCE
// v2 IPv4 GID of the veth's address, its selection, delete, gone.
func TestLabLinkLifecycle(t *testing.T) {
	labtest.Guest(t)
	ctx := labContext(t)
	h := openLab(t, ctx)
	newVeth(t, "rxv0", "rxv1", "198.18.22.1/24")

	added, err := h.AddLink(ctx, "rxelab0", "rxv0")
	if err != nil {
		t.Fatalf("AddLink: %v", err)
	}
	deleteOnCleanup(t, h, "rxelab0")
	if added.Name != "rxelab0" || len(added.Ports) != 1 || added.Ports[0].Netdev != "rxv0" {
		t.Errorf("AddLink returned %+v", added)
	}
	l, err := h.WaitActive(ctx, "rxelab0")
	if err != nil {
		t.Fatalf("WaitActive: %v", err)
	}
	v0, _ := netlink.LinkByName("rxv0")
	wantPort := Port{Device: "rxelab0", Port: 1, State: PortActive, PhysState: PhysLinkUp, Netdev: "rxv0", NetdevIndex: v0.Attrs().Index}
	if d := cmp.Diff([]Port{wantPort}, l.Ports); d != "" {
		t.Errorf("ports over netlink (-want +got):\n%s", d)
	}

	// netlink and sysfs agree, GUIDs included (the library reverses them).
	dev, err := Root{}.Device("rxelab0")
	if err != nil {
		t.Fatal(err)
	}
	if l.NodeGUID != dev.NodeGUID || l.SysImageGUID != dev.SysImageGUID || dev.Parent != "rxv0" {
		t.Errorf("netlink GUIDs %v/%v, sysfs %v/%v, parent %q", l.NodeGUID, l.SysImageGUID, dev.NodeGUID, dev.SysImageGUID, dev.Parent)
	}
	if dev.Ports[0].State != PortActive || dev.Ports[0].PhysState != PhysLinkUp {
		t.Errorf("sysfs port: %+v", dev.Ports[0])
	}
	// And both say what `rdma link show` says.
	out, err := exec.CommandContext(ctx, "rdma", "link", "show", "rxelab0/1").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != wantPort.String() {
		t.Errorf("rdma link show: %q (%v), Port.String() %q", out, err, wantPort.String())
	}

	// The GID table gets the RoCE v2 IPv4-mapped GID of 198.18.22.1, and
	// every policy selects it.
	gid, err := Root{}.WaitGID(ctx, "rxelab0", 1, isRoCEv2IPv4("198.18.22.1"))
	if err != nil {
		t.Fatalf("WaitGID: %v", err)
	}
	if gid.Netdev != "rxv0" || gid.GID != GIDFromAddr(netip.MustParseAddr("198.18.22.1")) {
		t.Errorf("GID entry %+v", gid)
	}
	table, err := Root{}.GIDTable("rxelab0", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []Policy{PolicyPerftestScore, PolicyPerftestPairwise, PolicyRoCEv2IPv4} {
		sel, err := SelectGID(table, SelectOptions{Policy: pol})
		if err != nil || sel.Entry != gid {
			t.Errorf("%v: selected %+v (%v), want index %d", pol, sel.Entry, err, gid.Index)
		}
	}
	t.Logf("GID table %+v", table.Entries)

	// Delete returns what was there, and it is gone everywhere.
	del, err := h.DeleteLink(ctx, "rxelab0")
	if err != nil {
		t.Fatalf("DeleteLink: %v", err)
	}
	if del.Name != "rxelab0" || del.Netdev() != "rxv0" {
		t.Errorf("DeleteLink returned %+v", del)
	}
	if _, err := h.LinkByName(ctx, "rxelab0"); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("after delete: LinkByName err = %v", err)
	}
	if _, err := (Root{}).Device("rxelab0"); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("after delete: sysfs Device err = %v", err)
	}
}

// TestLabLinkErrors checks the typed errors of the runbook's mistakes.
func TestLabLinkErrors(t *testing.T) {
	ctx, h := labLink(t, "rxelab1", "rxe_e0", "rxe_e1", "198.18.22.5/24")

	for _, tc := range []struct {
		name, netdev string
		kind         error
	}{
		{"rxelab2", "nosuch0", ErrNetdevNotFound},
		{"rxelab1", "rxe_e0", ErrLinkExists}, // the same command twice
		{"rxelab2", "rxe_e0", ErrLinkExists}, // a second rxe on the netdev (EEXIST)
		{"rxelab1", "rxe_e1", ErrLinkExists}, // the name is taken (ENFILE)
	} {
		_, err := h.AddLink(ctx, tc.name, tc.netdev)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, tc.kind) || e.Netdev != tc.netdev {
			t.Errorf("AddLink(%s, %s) error = %v, want kind %v", tc.name, tc.netdev, err, tc.kind)
		}
		t.Logf("AddLink(%s, %s): %v", tc.name, tc.netdev, err)
	}
	for _, n := range []string{"", "rx%d"} {
		if _, err := h.AddLink(ctx, n, "rxe_e1"); err == nil || errors.Is(err, ErrLinkExists) {
			t.Errorf("AddLink(%q) error = %v, want a name error", n, err)
		}
	}
	// rxe refuses a VLAN netdev (EPERM) on both lab kernels (Debian's 6.1
	// has the check too).
	if out, err := exec.CommandContext(ctx, "ip", "link", "add", "link", "rxe_e1", "name", "rxe_e1.5", "type", "vlan", "id", "5").CombinedOutput(); err != nil {
		t.Errorf("add VLAN: %v %s", err, out)
	} else if _, err := h.AddLink(ctx, "rxelabv", "rxe_e1.5"); !errors.Is(err, ErrNetdevUnusable) {
		t.Errorf("AddLink(VLAN) error = %v, want ErrNetdevUnusable", err)
		h.DeleteLink(ctx, "rxelabv")
	}
	if _, err := h.DeleteLink(ctx, "rxelab9"); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("DeleteLink(missing) error = %v, want ErrDeviceNotFound", err)
	}
	if _, err := (Root{}).GIDTable("rxelab9", 1); !errors.Is(err, ErrDeviceNotFound) {
		t.Errorf("GIDTable(missing) error = %v", err)
	}
	// Nothing was created by the failed calls.
	links, err := h.Links(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if l.Name == "rxelab2" {
			t.Errorf("a failed add left %+v", l)
		}
	}
}

// TestLabWaitActiveFollowsNetdev: the port is DOWN while its netdev is down,
// WaitActive says so at once (rxe.ErrNetdevDown with the remedy), and
// succeeds once the netdev is up.
func TestLabWaitActiveFollowsNetdev(t *testing.T) {
	ctx, h := labLink(t, "rxelab3", "rxw0", "rxw1", "198.18.22.9/24")
	w0, _ := netlink.LinkByName("rxw0")
	if err := netlink.LinkSetDown(w0); err != nil {
		t.Fatal(err)
	}
	// A down netdev is said at once, with the remedy, not after the
	// context's deadline (an hour away here).
	long, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	l, err := h.WaitActive(long, "rxelab3")
	var de *NetdevDownError
	if !errors.Is(err, ErrNetdevDown) || !errors.As(err, &de) || !strings.Contains(err.Error(), "ip link set rxw0 up") || long.Err() != nil {
		t.Errorf("netdev down: WaitActive error = %v", err)
	}
	if len(l.Ports) != 1 || l.Ports[0].State != PortDown {
		t.Errorf("netdev down: link %+v", l)
	}
	if err := netlink.LinkSetUp(w0); err != nil {
		t.Fatal(err)
	}
	if l, err := h.WaitActive(ctx, "rxelab3"); err != nil || !l.Active() {
		t.Errorf("netdev up: WaitActive = %+v, %v", l, err)
	}
}

// TestLabLinkInNamedNetns binds a Handle to a named namespace: the netdev
// is found there and not in the caller's namespace, and the port names its
// netdev only to the namespace it lives in.
func TestLabLinkInNamedNetns(t *testing.T) {
	labtest.Guest(t)
	ctx := labContext(t)
	root := openLab(t, ctx)
	name, ns := newNetns(t, "rxe")
	newVeth(t, "rxn0", "rxn1", "")
	n0, err := netlink.LinkByName("rxn0")
	if err != nil {
		t.Fatal(err)
	}
	if err := netlink.LinkSetNsFd(n0, int(ns)); err != nil {
		t.Fatal(err)
	}
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer nh.Close()
	n0, err = nh.LinkByName("rxn0")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := netlink.ParseAddr("198.18.23.1/24")
	if err := nh.AddrAdd(n0, addr); err != nil {
		t.Fatal(err)
	}
	if err := nh.LinkSetUp(n0); err != nil {
		t.Fatal(err)
	}

	// The test goroutine keeps one thread, whose namespace must not change.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()

	h, err := Open(Options{Netns: name})
	if err != nil {
		t.Fatalf("Open(netns %s): %v", name, err)
	}
	t.Cleanup(func() { h.Close() }) // after the link's cleanup
	if _, err := root.AddLink(ctx, "rxelabns", "rxn0"); !errors.Is(err, ErrNetdevNotFound) {
		t.Errorf("AddLink from the caller's namespace: err = %v, want ErrNetdevNotFound", err)
	}
	if _, err := h.AddLink(ctx, "rxelabns", "rxn0"); err != nil {
		t.Fatalf("AddLink in %s: %v", name, err)
	}
	deleteOnCleanup(t, h, "rxelabns")
	l, err := h.WaitActive(ctx, "rxelabns")
	if err != nil || l.Netdev() != "rxn0" {
		t.Fatalf("WaitActive in %s = %+v, %v", name, l, err)
	}
	// In shared RDMA namespace mode the device is visible from the caller's
	// namespace too, but its netdev is not named there.
	seen, err := root.LinkByName(ctx, "rxelabns")
	if err != nil || seen.Netdev() != "" || !seen.Active() {
		t.Errorf("from the caller's namespace: %+v, %v", seen, err)
	}
	if _, err := (Root{}).WaitGID(ctx, "rxelabns", 1, isRoCEv2IPv4("198.18.23.1")); err != nil {
		t.Errorf("WaitGID: %v", err)
	}
	if _, err := h.DeleteLink(ctx, "rxelabns"); err != nil {
		t.Errorf("DeleteLink in %s: %v", name, err)
	}
	after, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if !after.Equal(before) {
		t.Errorf("the calling thread moved from %v to %v", before, after)
	}
}

var gidIndexRE = regexp.MustCompile(`(?m)^ GID index\s*: (\d+)`)

// perftestChoice runs an ib_send_bw loopback pair without -x on device and
// returns the GID index perftest printed (both sides choose alike).
func perftestChoice(t *testing.T, ctx context.Context, device, addr string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, "ib_send_bw", "-d", device, "-n", "5")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	var out []byte
	for i := 0; i < 30; i++ { // the client does not retry; the server needs time to listen
		time.Sleep(time.Second)
		out, _ = exec.CommandContext(ctx, "ib_send_bw", "-d", device, "-n", "5", addr).CombinedOutput()
		if gidIndexRE.Match(out) {
			break
		}
	}
	m := gidIndexRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("ib_send_bw printed no GID index:\n%s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestLabSelectionMatchesPerftest compares SelectGID with the index the
// installed perftest picks by itself, with IPv6 only and with IPv4 too.
func TestLabSelectionMatchesPerftest(t *testing.T) {
	labtest.Guest(t)
	ctx := labContext(t)
	h := openLab(t, ctx)
	newVeth(t, "rxp0", "rxp1", "")
	p0, _ := netlink.LinkByName("rxp0")
	a6, _ := netlink.ParseAddr("2001:2::7/64")
	a6.Flags = 0x80 // IFA_F_NODAD
	if err := netlink.AddrAdd(p0, a6); err != nil {
		t.Fatal(err)
	}
	if _, err := h.AddLink(ctx, "rxelabp", "rxp0"); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, h, "rxelabp")
	if _, err := h.WaitActive(ctx, "rxelabp"); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		addr, connect string
		want          GIDEntry
	}{
		{"", "127.0.0.1", GIDEntry{GID: GIDFromAddr(netip.MustParseAddr("2001:2::7"))}},
		{"198.18.24.1/24", "198.18.24.1", GIDEntry{GID: GIDFromAddr(netip.MustParseAddr("198.18.24.1"))}},
	} {
		if step.addr != "" {
			a, _ := netlink.ParseAddr(step.addr)
			if err := netlink.AddrAdd(p0, a); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := (Root{}).WaitGID(ctx, "rxelabp", 1, func(e GIDEntry) bool { return e.GID == step.want.GID }); err != nil {
			t.Fatal(err)
		}
		table, err := Root{}.GIDTable("rxelabp", 1)
		if err != nil {
			t.Fatal(err)
		}
		got := perftestChoice(t, ctx, "rxelabp", step.connect)
		sel, err := SelectGID(table, SelectOptions{Policy: PolicyPerftestPairwise})
		if err != nil || sel.Entry.Index != got {
			t.Errorf("%s: perftest chose %d, PolicyPerftestPairwise %d (%v); table %+v", labtest.Suite(), got, sel.Entry.Index, err, table.Entries)
		}
		score, _ := SelectGID(table, SelectOptions{})
		t.Logf("%s: perftest %d; score policy %d (%s)", labtest.Suite(), got, score.Entry.Index, score.Reason)
	}
}

// TestLabModuleStatus reads the live guest.
func TestLabModuleStatus(t *testing.T) {
	labtest.Guest(t)
	st, err := Root{}.RXEModule()
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := exec.Command("uname", "-r").Output()
	if st.KernelRelease != strings.TrimSpace(string(rel)) || !st.Usable() || !st.CoreAvailable || st.ModulePath == "" {
		t.Errorf("RXEModule = %+v", st)
	}
}
