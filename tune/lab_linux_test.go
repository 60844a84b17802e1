//go:build lab

package tune

// Tier 3: lab tests in QEMU guests with real kernels (Debian 6.1 and
// 6.12), -smp 4 and two virtio-net NICs eth0 and eth1 on one QEMU hub. Run
// them with: go run ./internal/lab/cmd/lab test -v

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/vishvananda/netlink"
)

// labState is every value the lab test changes, read through the owning
// packages.
type labState struct {
	mtu      map[string]int
	channels map[string]nic.Channels
	ring     *nic.Ring // eth0's, when the driver has one
	rxe      bool      // the rxe link exists
	affinity map[int]irq.CPUList
}

func readLabState(t *testing.T, ctx context.Context, fs irq.Root, netdevs []string, irqs []int) labState {
	t.Helper()
	h, err := nic.Open(nic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st := labState{mtu: map[string]int{}, channels: map[string]nic.Channels{}, affinity: map[int]irq.CPUList{}}
	for _, d := range netdevs {
		if st.mtu[d], err = h.MTU(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range netdevs {
		if st.channels[d], err = h.Channels(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if ring, err := h.Ring(ctx, "eth0"); err == nil {
		st.ring = &ring
	}
	r, err := rxe.Open(rxe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.LinkByName(ctx, labRXE)
	switch {
	case err == nil:
		st.rxe = true
	case !errors.Is(err, rxe.ErrDeviceNotFound):
		t.Fatal(err)
	}
	for _, n := range irqs {
		a, err := fs.Affinity(n)
		if err != nil {
			t.Fatal(err)
		}
		st.affinity[n] = a.CPUs
	}
	return st
}

const labRXE = "tunerxe0"

// TestLabRecoverAfterSIGKILL is the acceptance test: a child
// process applies MTU 9000 on both virtio NICs and a veth, an rxe link on
// the veth, channel changes on eth0 and eth1, and spreads the NICs' queue
// IRQs over the CPUs, all through tune; it is killed with SIGKILL, and
// Recover brings every value back, asserted one by one. A second Recover
// changes nothing.
func TestLabRecoverAfterSIGKILL(t *testing.T) {
	labtest.Guest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	fs, err := irq.DefaultRoot()
	if err != nil {
		t.Fatal(err)
	}
	labVeth(t)
	plan, irqs := labPlan(t, fs)
	netdevs := []string{"eth0", "eth1", "tlv0"}
	orig := readLabState(t, ctx, fs, netdevs, irqs)
	t.Logf("before: %s", orig)
	changes, want := labChanges(t, ctx, orig, plan)

	// The guests have no cpufreq: a governor change is refused before
	// anything is journaled.
	if s, err := Begin(filepath.Join(t.TempDir(), "gov.jsonl"), Options{}); err == nil {
		if _, err := s.Apply(ctx, MTU("", "eth0", 9000), Governor(0, "performance")); !errors.Is(err, irq.ErrNoCpufreq) || len(s.Entries()) != 0 {
			t.Errorf("governor without cpufreq: %v, %d entries", err, len(s.Entries()))
		}
		s.Close()
	}

	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	t.Cleanup(func() { Recover(context.Background(), journal) }) // if an assertion stops the test
	crashAfterApply(t, crashPlan{Journal: journal, Changes: changes})
	mid := readLabState(t, ctx, fs, netdevs, irqs)
	t.Logf("after SIGKILL: %s", mid)
	for _, d := range labDiff(want, mid) {
		t.Errorf("after the child applied its changes: %s", d)
	}

	rep, err := Recover(ctx, journal)
	if err != nil || len(rep.Undone) != len(changes) {
		t.Fatalf("Recover = %d undone of %d, %v", len(rep.Undone), len(changes), err)
	}
	back := readLabState(t, ctx, fs, netdevs, irqs)
	t.Logf("after Recover: %s", back)
	for _, d := range labDiff(orig, back) {
		t.Errorf("after Recover: %s", d)
	}

	rep, err = Recover(ctx, journal)
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != len(changes) {
		t.Errorf("second Recover = %+v, %v", rep, err)
	}
	for _, d := range labDiff(back, readLabState(t, ctx, fs, netdevs, irqs)) {
		t.Errorf("the second Recover changed %s", d)
	}
}

// labVeth makes the veth tlv0/tlv1 for the rxe link, addressed in
// 198.18.60.0/24, and deletes it when the test ends.
func labVeth(t *testing.T) {
	t.Helper()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "tlv0"}, PeerName: "tlv1"}
	if err := netlink.LinkAdd(veth); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { netlink.LinkDel(veth) })
	for i, name := range []string{"tlv0", "tlv1"} {
		l, err := netlink.LinkByName(name)
		if err != nil {
			t.Fatal(err)
		}
		addr, _ := netlink.ParseAddr([]string{"198.18.60.1/24", "198.18.60.2/24"}[i])
		if err := netlink.AddrAdd(l, addr); err != nil {
			t.Fatal(err)
		}
		if err := netlink.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
}

// labPlan spreads the hub NICs' writable queue IRQs round-robin over the
// online CPUs.
func labPlan(t *testing.T, fs irq.Root) (irq.Plan, []int) {
	t.Helper()
	online, err := fs.OnlineCPUs()
	if err != nil || len(online) != 4 {
		t.Fatalf("online CPUs %v, %v; the lab runs -smp 4", online, err)
	}
	var queues []irq.QueueIRQ
	for _, name := range []string{"eth0", "eth1"} {
		d, err := fs.Netdev(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range d.Queues() {
			if a, err := fs.Affinity(q.IRQ); err == nil && !a.ReadOnly {
				queues = append(queues, q)
			}
		}
	}
	plan := irq.RoundRobin(queues, online)
	if len(plan.Assign) < 2 {
		t.Fatalf("only %d IRQs to spread: %s", len(plan.Assign), plan)
	}
	t.Logf("plan:\n%s", plan)
	var irqs []int
	for _, a := range plan.Assign {
		irqs = append(irqs, a.IRQ)
	}
	return plan, irqs
}

// labChanges returns the changes the child makes and the state they give.
func labChanges(t *testing.T, ctx context.Context, orig labState, plan irq.Plan) ([]Change, labState) {
	t.Helper()
	want := labState{mtu: map[string]int{}, channels: map[string]nic.Channels{}, rxe: true, affinity: map[int]irq.CPUList{}, ring: orig.ring}
	var changes []Change
	for d := range orig.mtu {
		changes = append(changes, MTU("", d, 9000))
		want.mtu[d] = 9000
	}
	changes = append(changes, AddRXE("", labRXE, "tlv0"))
	// The hub NICs have one combined channel (QEMU without mq): their
	// change is journaled and restored but changes no count. The veth's
	// RX and TX queue counts do change.
	for _, d := range []string{"eth0", "eth1"} {
		c := orig.channels[d]
		c.Combined = otherCount(c.Combined, c.MaxCombined)
		changes = append(changes, Channels("", d, nic.ChannelsUpdate{Combined: &c.Combined}))
		want.channels[d] = c
	}
	vc := orig.channels["tlv0"]
	vc.Rx = otherCount(vc.Rx, vc.MaxRx)
	vc.Tx = vc.Rx
	changes = append(changes, Channels("", "tlv0", nic.ChannelsUpdate{Rx: &vc.Rx, Tx: &vc.Tx}))
	want.channels["tlv0"] = vc
	if half, ok := labRingWorks(t, ctx, orig.ring); ok {
		changes = append(changes, Ring("", "eth0", nic.RingUpdate{Rx: &half}))
		r := *orig.ring
		r.RxPending = half
		want.ring = &r
	}
	changes = append(changes, Spread(plan)...)
	for _, a := range plan.Assign {
		want.affinity[a.IRQ] = a.CPUs
	}
	return changes, want
}

// labRingWorks reports whether eth0's driver lets the RX ring shrink to
// half (virtio-net needs VIRTIO_F_RING_RESET from the host), trying it with
// nic directly and setting it back.
func labRingWorks(t *testing.T, ctx context.Context, ring *nic.Ring) (uint32, bool) {
	t.Helper()
	if ring == nil || ring.RxPending < 2 {
		t.Logf("eth0 has no ring to change: %+v", ring)
		return 0, false
	}
	h, err := nic.Open(nic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	half := ring.RxPending / 2
	old, err := h.SetRing(ctx, "eth0", nic.RingUpdate{Rx: &half})
	if err != nil {
		t.Logf("eth0 ring cannot change here, left out: %v", err)
		return 0, false
	}
	if _, err := h.SetRing(ctx, "eth0", old.Update()); err != nil {
		t.Fatal(err)
	}
	return half, true
}

// String lists the values for the test log.
func (s labState) String() string {
	var b strings.Builder
	for _, d := range slices.Sorted(maps.Keys(s.mtu)) {
		c := s.channels[d]
		fmt.Fprintf(&b, "%s: mtu %d channels rx %d tx %d combined %d; ", d, s.mtu[d], c.Rx, c.Tx, c.Combined)
	}
	if s.ring != nil {
		fmt.Fprintf(&b, "eth0 ring rx %d tx %d; ", s.ring.RxPending, s.ring.TxPending)
	}
	fmt.Fprintf(&b, "%s present %v;", labRXE, s.rxe)
	for _, n := range slices.Sorted(maps.Keys(s.affinity)) {
		fmt.Fprintf(&b, " IRQ %d cpus %s", n, s.affinity[n])
	}
	return b.String()
}

// labDiff lists every value of got that differs from want, one by one.
func labDiff(want, got labState) []string {
	var out []string
	for _, d := range slices.Sorted(maps.Keys(want.mtu)) {
		if got.mtu[d] != want.mtu[d] {
			out = append(out, fmt.Sprintf("%s MTU %d, want %d", d, got.mtu[d], want.mtu[d]))
		}
	}
	for _, d := range slices.Sorted(maps.Keys(want.channels)) {
		if got.channels[d] != want.channels[d] {
			out = append(out, fmt.Sprintf("%s channels %+v, want %+v", d, got.channels[d], want.channels[d]))
		}
	}
	if want.ring != nil && (got.ring == nil || *got.ring != *want.ring) {
		out = append(out, fmt.Sprintf("eth0 ring %+v, want %+v", got.ring, *want.ring))
	}
	if got.rxe != want.rxe {
		out = append(out, fmt.Sprintf("%s present %v, want %v", labRXE, got.rxe, want.rxe))
	}
	for _, n := range slices.Sorted(maps.Keys(want.affinity)) {
		if !got.affinity[n].Equal(want.affinity[n]) {
			out = append(out, fmt.Sprintf("IRQ %d cpus %s, want %s", n, got.affinity[n], want.affinity[n]))
		}
	}
	return out
}
