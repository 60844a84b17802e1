package tune

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

// fakeSystem keeps values in memory. Targets not in vals do not exist.
type fakeSystem struct {
	vals   map[string]Value
	online irq.CPUList
	failW  map[string]error // write errors by key
	writes []string         // "key=value" in order
	closed int
}

func fkey(k Kind, t Target) string {
	switch k {
	case KindMTU, KindLink, KindRing, KindChannels, KindCoalesce:
		return fmt.Sprintf("%s/%s/%s", k, t.Netns, t.Netdev)
	case KindRXE:
		return fmt.Sprintf("%s/%s/%s", k, t.Netns, t.Link)
	case KindAffinity:
		return fmt.Sprintf("%s/%d", k, t.IRQ)
	}
	if t.Netdev != "" { // a kind of a file of its own
		return fmt.Sprintf("%s/%s/%s", k, t.Netns, t.Netdev)
	}
	return fmt.Sprintf("%s/%d", k, t.CPU)
}

func newFake() *fakeSystem {
	up := true
	r := uint32(256)
	c := uint32(2)
	zero := uint32(0)
	return &fakeSystem{online: irq.NewCPUList(0, 1, 2, 3), failW: map[string]error{}, vals: map[string]Value{
		"mtu//eth0":      {MTU: 1500},
		"mtu//eth1":      {MTU: 1500},
		"mtu/a/v0":       {MTU: 1500},
		"link//eth0":     {Up: &up},
		"ring//eth0":     {Ring: &nic.RingUpdate{Rx: &r, RxMini: &zero, RxJumbo: &zero, Tx: &r}},
		"channels//eth0": {Channels: &nic.ChannelsUpdate{Rx: &zero, Tx: &zero, Other: &zero, Combined: &c}},
		"rxe//rxe0":      {RXE: &RXELink{}},
		"affinity/27":    {CPUs: irq.NewCPUList(0, 1, 2, 3)},
		"affinity/28":    {CPUs: irq.NewCPUList(0, 1, 2, 3)},
		"governor/0":     {Governor: "schedutil"},
		"coalesce//eth0": {Coalesce: func() *nic.CoalesceUpdate {
			u := (nic.Coalesce{AdaptiveRx: true, RxUsecs: 8, RxFrames: 128}).Update()
			return &u
		}()},
	}}
}

var errFakeMissing = errors.New("fake: no such target")

func (f *fakeSystem) read(ctx context.Context, k Kind, t Target) (Value, error) {
	v, ok := f.vals[fkey(k, t)]
	if !ok {
		return Value{}, fmt.Errorf("%s: %w", fkey(k, t), errFakeMissing)
	}
	return clone(v), nil
}

func clone(v Value) Value {
	cp := func(p *uint32) *uint32 {
		if p == nil {
			return nil
		}
		x := *p
		return &x
	}
	if v.Up != nil {
		u := *v.Up
		v.Up = &u
	}
	if v.Ring != nil {
		v.Ring = &nic.RingUpdate{Rx: cp(v.Ring.Rx), RxMini: cp(v.Ring.RxMini), RxJumbo: cp(v.Ring.RxJumbo), Tx: cp(v.Ring.Tx)}
	}
	if c := v.Coalesce; c != nil {
		b := func(p *bool) *bool {
			if p == nil {
				return nil
			}
			x := *p
			return &x
		}
		v.Coalesce = &nic.CoalesceUpdate{AdaptiveRx: b(c.AdaptiveRx), AdaptiveTx: b(c.AdaptiveTx), RxUsecs: cp(c.RxUsecs), RxFrames: cp(c.RxFrames), TxUsecs: cp(c.TxUsecs), TxFrames: cp(c.TxFrames)}
	}
	if v.Channels != nil {
		v.Channels = &nic.ChannelsUpdate{Rx: cp(v.Channels.Rx), Tx: cp(v.Channels.Tx), Other: cp(v.Channels.Other), Combined: cp(v.Channels.Combined)}
	}
	if v.RXE != nil {
		r := *v.RXE
		v.RXE = &r
	}
	v.CPUs = append(irq.CPUList(nil), v.CPUs...)
	if len(v.CPUs) == 0 {
		v.CPUs = nil
	}
	return v
}

func (f *fakeSystem) write(ctx context.Context, k Kind, t Target, v Value) error {
	key := fkey(k, t)
	cur, ok := f.vals[key]
	if !ok {
		return fmt.Errorf("%s: %w", key, errFakeMissing)
	}
	if err := f.failW[key]; err != nil {
		return err
	}
	f.writes = append(f.writes, key+"="+v.String())
	v = clone(v)
	switch k {
	case KindRing:
		merge([]**uint32{&cur.Ring.Rx, &cur.Ring.RxMini, &cur.Ring.RxJumbo, &cur.Ring.Tx},
			[]*uint32{v.Ring.Rx, v.Ring.RxMini, v.Ring.RxJumbo, v.Ring.Tx})
		v = cur
	case KindCoalesce:
		merge([]**uint32{&cur.Coalesce.RxUsecs, &cur.Coalesce.RxFrames, &cur.Coalesce.TxUsecs, &cur.Coalesce.TxFrames},
			[]*uint32{v.Coalesce.RxUsecs, v.Coalesce.RxFrames, v.Coalesce.TxUsecs, v.Coalesce.TxFrames})
		if v.Coalesce.AdaptiveRx != nil {
			cur.Coalesce.AdaptiveRx = v.Coalesce.AdaptiveRx
		}
		if v.Coalesce.AdaptiveTx != nil {
			cur.Coalesce.AdaptiveTx = v.Coalesce.AdaptiveTx
		}
		v = cur
	case KindChannels:
		merge([]**uint32{&cur.Channels.Rx, &cur.Channels.Tx, &cur.Channels.Other, &cur.Channels.Combined},
			[]*uint32{v.Channels.Rx, v.Channels.Tx, v.Channels.Other, v.Channels.Combined})
		v = cur
	}
	f.vals[key] = v
	return nil
}

func merge(dst []**uint32, src []*uint32) {
	for i, s := range src {
		if s != nil {
			*dst[i] = s
		}
	}
}

func (f *fakeSystem) onlineCPUs() (irq.CPUList, error) { return f.online, nil }

func (f *fakeSystem) irqExists(n int) error {
	if _, ok := f.vals["affinity/"+strconv.Itoa(n)]; !ok {
		return &InputError{Field: "irq", Value: strconv.Itoa(n), Reason: "no such IRQ"}
	}
	return nil
}

func (f *fakeSystem) close() error { f.closed++; return nil }

func (f *fakeSystem) get(t *testing.T, key string) string {
	t.Helper()
	v, ok := f.vals[key]
	if !ok {
		t.Fatalf("fake has no %s", key)
	}
	return v.String()
}

// fakeSession starts a session on f with a journal in a temporary folder.
func fakeSession(t *testing.T, f *fakeSystem) *Session {
	t.Helper()
	s, err := begin(t.TempDir()+"/journal.jsonl", "/proc", "/sys", f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func u32(v uint32) *uint32 { return &v }
