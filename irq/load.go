package irq

import (
	"errors"
	"fmt"
	"time"
)

// LoadSnapshot is one reading of the files the load sampler compares:
// /proc/stat, /proc/softirqs and /proc/net/softnet_stat.
type LoadSnapshot struct {
	Time     time.Time
	Stat     Stat
	Softirqs Softirqs
	Softnet  []SoftnetStat
}

// LoadSnapshot reads /proc/stat, /proc/softirqs and /proc/net/softnet_stat.
// A missing softirqs or softnet_stat file leaves its part empty; a missing
// or unparsable /proc/stat is an error.
func (fs Root) LoadSnapshot() (LoadSnapshot, error) {
	s := LoadSnapshot{Time: time.Now()}
	st, err := fs.Stat()
	if err != nil {
		return s, err
	}
	s.Stat = st
	var errs []error
	if si, err := fs.Softirqs(); err == nil {
		s.Softirqs = si
	} else {
		errs = append(errs, err)
	}
	if sn, err := fs.Softnet(); err == nil {
		s.Softnet = sn
	} else {
		errs = append(errs, err)
	}
	return s, errors.Join(errs...)
}

// CPULoad is one CPU's load over an interval, as mpstat -P ALL prints it:
// percentages of the CPU's time (mpstat's %usr excludes guest time, which
// the kernel counts in user), plus the interval's softirq runs and softnet
// counters.
type CPULoad struct {
	CPU          int // -1 for all CPUs together
	UserPct      float64
	NicePct      float64
	SysPct       float64
	IOWaitPct    float64
	IRQPct       float64
	SoftPct      float64
	StealPct     float64
	GuestPct     float64
	GuestNicePct float64
	IdlePct      float64
	// NetRX and NetTX count NET_RX and NET_TX softirq runs
	// (/proc/softirqs).
	NetRX uint64
	NetTX uint64
	// Dropped and TimeSqueeze are softnet_stat's backlog drops and
	// budget exhaustions.
	Dropped     uint64
	TimeSqueeze uint64
	// Ticks is the interval's length on this CPU in USER_HZ ticks (1/100
	// s): the resolution of the percentages.
	Ticks uint64
}

// Load is the per-CPU load between two snapshots.
type Load struct {
	Start, End time.Time
	All        CPULoad   // CPU -1: the "all" row
	CPUs       []CPULoad // by CPU id
}

// Sub returns the load between before and after (this snapshot):
// after.Sub(before). CPUs missing from
// either snapshot (hot-plugged) are left out; counters that went backwards
// count as 0.
func (after LoadSnapshot) Sub(before LoadSnapshot) Load {
	l := Load{Start: before.Time, End: after.Time}
	l.All = cpuLoad(before.Stat.Total, after.Stat.Total)
	for _, a := range after.Stat.CPUs {
		b, ok := before.Stat.CPU(a.CPU)
		if !ok {
			continue
		}
		c := cpuLoad(b, a)
		c.NetRX = sub(before.Softirqs.Count("NET_RX", a.CPU), after.Softirqs.Count("NET_RX", a.CPU))
		c.NetTX = sub(before.Softirqs.Count("NET_TX", a.CPU), after.Softirqs.Count("NET_TX", a.CPU))
		sb, okb := softnetOf(before.Softnet, a.CPU)
		sa, oka := softnetOf(after.Softnet, a.CPU)
		if okb && oka {
			c.Dropped = sub(sb.Dropped, sa.Dropped)
			c.TimeSqueeze = sub(sb.TimeSqueeze, sa.TimeSqueeze)
		}
		l.All.NetRX += c.NetRX
		l.All.NetTX += c.NetTX
		l.All.Dropped += c.Dropped
		l.All.TimeSqueeze += c.TimeSqueeze
		l.CPUs = append(l.CPUs, c)
	}
	return l
}

func softnetOf(s []SoftnetStat, cpu int) (SoftnetStat, bool) {
	for _, x := range s {
		if x.CPU == cpu {
			return x, true
		}
	}
	return SoftnetStat{}, false
}

// sub is after-before, 0 if the counter went backwards.
func sub(before, after uint64) uint64 {
	if after < before {
		return 0
	}
	return after - before
}

// cpuLoad is sysstat's computation: the interval is the sum of all states
// except guest and guest_nice, which user and nice already include.
func cpuLoad(b, a CPUTicks) CPULoad {
	user := sub(b.User, a.User)
	nice := sub(b.Nice, a.Nice)
	guest := sub(b.Guest, a.Guest)
	guestNice := sub(b.GuestNice, a.GuestNice)
	sys := sub(b.System, a.System)
	idle := sub(b.Idle, a.Idle)
	iowait := sub(b.IOWait, a.IOWait)
	irq := sub(b.IRQ, a.IRQ)
	soft := sub(b.SoftIRQ, a.SoftIRQ)
	steal := sub(b.Steal, a.Steal)
	usr := sub(guest, user) // user - guest, 0 if guest > user
	nic := sub(guestNice, nice)
	total := usr + guest + nic + guestNice + sys + idle + iowait + irq + soft + steal
	c := CPULoad{CPU: a.CPU, Ticks: total}
	if total == 0 {
		return c
	}
	pct := func(v uint64) float64 { return 100 * float64(v) / float64(total) }
	c.UserPct, c.NicePct, c.SysPct = pct(usr), pct(nic), pct(sys)
	c.IOWaitPct, c.IRQPct, c.SoftPct = pct(iowait), pct(irq), pct(soft)
	c.StealPct, c.GuestPct, c.GuestNicePct = pct(steal), pct(guest), pct(guestNice)
	c.IdlePct = pct(idle)
	return c
}

// HotCore is the CPU that spent most time in softirq.
type HotCore struct {
	CPU     int // -1 when no CPU spent time in softirq
	SoftPct float64
	IRQPct  float64
	IdlePct float64
	NetRX   uint64
	// Time is the end of the interval it was seen in.
	Time time.Time
}

// String names the core as mpstat users would: "CPU3 92% soft".
func (h HotCore) String() string {
	if h.CPU < 0 {
		return "no softirq load"
	}
	return fmt.Sprintf("CPU%d %.0f%% soft", h.CPU, h.SoftPct)
}

// Hot returns the CPU with the highest softirq share in l; ties go to the
// one with more NET_RX runs, then the lower id.
func (l Load) Hot() HotCore { return l.hot(0) }

// hot is Hot among CPUs whose interval lasted at least minTicks.
func (l Load) hot(minTicks uint64) HotCore {
	h := HotCore{CPU: -1, Time: l.End}
	var best *CPULoad
	for i := range l.CPUs {
		c := &l.CPUs[i]
		if c.SoftPct <= 0 || c.Ticks < minTicks {
			continue
		}
		if best == nil || c.SoftPct > best.SoftPct || (c.SoftPct == best.SoftPct && c.NetRX > best.NetRX) {
			best = c
		}
	}
	if best != nil && best.SoftPct > 0 {
		h.CPU, h.SoftPct, h.IRQPct, h.IdlePct, h.NetRX = best.CPU, best.SoftPct, best.IRQPct, best.IdlePct, best.NetRX
	}
	return h
}
