package irq

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rocekit/rocekit/sysroot"
)

func snapshotOf(t *testing.T, dir string, at time.Time) LoadSnapshot {
	t.Helper()
	s, err := Root(sysroot.ProcSys("testdata/"+dir+"/proc", "testdata/"+dir+"/sys")).LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	s.Time = at
	return s
}

// TestLoadBetweenTrixie computes mpstat's columns for the real traffic pair
// of the trixie guest, by hand from the captured ticks:
//
//	cpu0 804 0 1150 7729 0 0 113 -> 804 0 1202 7978 0 0 143
//	cpu1 919 0 1325 7517 0 0 114 -> 964 0 1380 7766 0 0 162
//	cpu2 1363 0 1470 6618 0 0 128 -> 1381 0 1499 6857 0 0 149
//	cpu3 918 0 1069 7288 0 0 101 -> 941 0 1110 7588 0 0 104
func TestLoadBetweenTrixie(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 17, 24, 0, 0, time.UTC)
	before := snapshotOf(t, "trixie/traffic/before", t0)
	after := snapshotOf(t, "trixie/traffic/after", t0.Add(2250*time.Millisecond))
	l := after.Sub(before)
	pct := func(v, total float64) float64 { return 100 * v / total }
	want := Load{
		Start: t0, End: t0.Add(2250 * time.Millisecond),
		All: CPULoad{CPU: -1, UserPct: pct(87, 1403), SysPct: pct(177, 1403), IdlePct: pct(1037, 1403), SoftPct: pct(102, 1403),
			NetRX: 399 + 335 + 454, NetTX: 5 + 6, TimeSqueeze: 12 + 22 + 24, Ticks: 1403},
		CPUs: []CPULoad{
			{CPU: 0, SysPct: pct(52, 331), IdlePct: pct(249, 331), SoftPct: pct(30, 331), NetRX: 399, TimeSqueeze: 12, Ticks: 331},
			{CPU: 1, UserPct: pct(45, 397), SysPct: pct(55, 397), IdlePct: pct(249, 397), SoftPct: pct(48, 397), NetRX: 335, NetTX: 5, TimeSqueeze: 22, Ticks: 397},
			{CPU: 2, UserPct: pct(18, 307), SysPct: pct(29, 307), IdlePct: pct(239, 307), SoftPct: pct(21, 307), NetRX: 454, NetTX: 6, TimeSqueeze: 24, Ticks: 307},
			{CPU: 3, UserPct: pct(23, 367), SysPct: pct(41, 367), IdlePct: pct(300, 367), SoftPct: pct(3, 367), Ticks: 367},
		},
	}
	if diff := cmp.Diff(want, l, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	h := l.Hot()
	if h.CPU != 1 || h.String() != "CPU1 12% soft" || h.NetRX != 335 {
		t.Errorf("Hot = %+v (%s)", h, h)
	}
}

// TestLoadBetweenBookworm: the bookworm pair; the hot core is CPU0 there
// and every CPU's percentages add up to 100.
func TestLoadBetweenBookworm(t *testing.T) {
	l := snapshotOf(t, "bookworm/traffic/after", time.Time{}).Sub(snapshotOf(t, "bookworm/traffic/before", time.Time{}))
	for _, c := range append(l.CPUs, l.All) {
		sum := c.UserPct + c.NicePct + c.SysPct + c.IOWaitPct + c.IRQPct + c.SoftPct + c.StealPct + c.GuestPct + c.GuestNicePct + c.IdlePct
		if sum < 99.999 || sum > 100.001 {
			t.Errorf("CPU%d sums to %f", c.CPU, sum)
		}
	}
	// cpu0 955 0 1221 9086 0 0 131 -> 1036 0 1280 9348 0 0 151: 20 of 422.
	if h := l.Hot(); h.CPU != 0 || h.String() != "CPU0 5% soft" {
		t.Errorf("Hot = %s", h)
	}
	if l.All.NetRX != (176-2)+(202-7)+(147-4) {
		t.Errorf("NET_RX %d", l.All.NetRX)
	}
}

// TestCPULoadGuest follows sysstat: guest time is inside user, so %usr
// excludes it and the total does not count it twice.
func TestCPULoadGuest(t *testing.T) {
	b := CPUTicks{CPU: 2}
	a := CPUTicks{CPU: 2, User: 60, Guest: 40, Nice: 10, GuestNice: 10, System: 10, Idle: 10, IRQ: 5, SoftIRQ: 5}
	got := cpuLoad(b, a) // 100 ticks in all
	want := CPULoad{CPU: 2, UserPct: 20, GuestPct: 40, NicePct: 0, GuestNicePct: 10, SysPct: 10, IdlePct: 10, IRQPct: 5, SoftPct: 5, Ticks: 100}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Counters going backwards (a replugged CPU) give zeros, not huge
	// numbers.
	if got := cpuLoad(a, b); got != (CPULoad{CPU: 2}) { // 0 ticks
		t.Errorf("backwards: %+v", got)
	}
}

func TestHotNone(t *testing.T) {
	s := snapshotOf(t, "host/pair/before", time.Time{})
	if h := s.Sub(s).Hot(); h.CPU != -1 || h.String() != "no softirq load" {
		t.Errorf("Hot = %+v", h)
	}
}

// TestLoadBetweenHost: the host's pair, one second apart while other
// QEMU guests kept both CPUs busy in user space (94+7 and 101+0 ticks), no
// network softirqs.
func TestLoadBetweenHost(t *testing.T) {
	l := snapshotOf(t, "host/pair/after", time.Time{}).Sub(snapshotOf(t, "host/pair/before", time.Time{}))
	want := []CPULoad{
		{CPU: 0, UserPct: 100 * 94.0 / 101, SysPct: 100 * 7.0 / 101, Ticks: 101},
		{CPU: 1, UserPct: 100, Ticks: 101},
	}
	if diff := cmp.Diff(want, l.CPUs, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if h := l.Hot(); h.CPU != -1 {
		t.Errorf("Hot = %s", h)
	}
}
