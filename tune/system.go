package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

// system reads and writes the targets of changes. The live one goes
// through nic, rxe and irq; tests use a fake.
type system interface {
	// read returns the target's current value of the kind.
	read(ctx context.Context, k Kind, t Target) (Value, error)
	// write sets the target to v (for ring and channels, the counts set).
	write(ctx context.Context, k Kind, t Target, v Value) error
	// onlineCPUs lists the online CPUs.
	onlineCPUs() (irq.CPUList, error)
	// irqExists reports whether /proc/irq/N is there.
	irqExists(n int) error
	close() error
}

// liveSystem changes the running kernel through the owning packages, with
// one nic and one rxe Handle per namespace, opened when first needed.
type liveSystem struct {
	irq  irq.FS
	nics map[string]*nic.Handle
	rxes map[string]*rxe.Handle
}

func newLiveSystem(procRoot, sysRoot string) *liveSystem {
	return &liveSystem{irq: irq.NewFS(procRoot, sysRoot), nics: map[string]*nic.Handle{}, rxes: map[string]*rxe.Handle{}}
}

func (s *liveSystem) nic(ns string) (*nic.Handle, error) {
	if h, ok := s.nics[ns]; ok {
		return h, nil
	}
	h, err := nic.Open(nic.Options{Netns: ns})
	if err != nil {
		return nil, err
	}
	s.nics[ns] = h
	return h, nil
}

func (s *liveSystem) rxe(ns string) (*rxe.Handle, error) {
	if h, ok := s.rxes[ns]; ok {
		return h, nil
	}
	h, err := rxe.Open(rxe.Options{Netns: ns})
	if err != nil {
		return nil, err
	}
	s.rxes[ns] = h
	return h, nil
}

func (s *liveSystem) read(ctx context.Context, k Kind, t Target) (Value, error) {
	switch k {
	case KindMTU, KindLink, KindRing, KindChannels:
		h, err := s.nic(t.Netns)
		if err != nil {
			return Value{}, err
		}
		return readNIC(ctx, h, k, t.Netdev)
	case KindRXE:
		h, err := s.rxe(t.Netns)
		if err != nil {
			return Value{}, err
		}
		l, err := h.LinkByName(ctx, t.Link)
		if errors.Is(err, rxe.ErrDeviceNotFound) {
			return Value{RXE: &RXELink{}}, nil
		}
		if err != nil {
			return Value{}, err
		}
		return Value{RXE: &RXELink{Present: true, Netdev: l.Netdev()}}, nil
	case KindAffinity:
		a, err := s.irq.Affinity(t.IRQ)
		if err != nil {
			return Value{}, err
		}
		return Value{CPUs: a.CPUs}, nil
	case KindGovernor:
		g, err := s.irq.Governor(t.CPU)
		return Value{Governor: g}, err
	case KindSysctl:
		v, err := readSysctl(s.irq.ProcRoot(), t.Netns, t.Key)
		return Value{Sysctl: &v}, err
	case KindFeatures:
		return s.readFeatures(ctx, t)
	case KindCoalesce:
		h, err := s.nic(t.Netns)
		if err != nil {
			return Value{}, err
		}
		c, err := h.Coalesce(ctx, t.Netdev)
		if err != nil {
			return Value{}, err
		}
		u := c.Update()
		return Value{Coalesce: &u}, nil
	case KindIRQBalance:
		return readIRQBalance(s.irq)
	case KindNetns, KindVeth:
		return readTopology(ctx, k, t)
	case KindProcess:
		return readProcess(t)
	}
	return Value{}, fmt.Errorf("tune: unknown kind %q", k)
}

func readNIC(ctx context.Context, h *nic.Handle, k Kind, netdev string) (Value, error) {
	switch k {
	case KindMTU:
		mtu, err := h.MTU(ctx, netdev)
		return Value{MTU: mtu}, err
	case KindLink:
		st, err := h.State(ctx, netdev)
		return Value{Up: &st.AdminUp}, err
	case KindRing:
		r, err := h.Ring(ctx, netdev)
		if err != nil {
			return Value{}, err
		}
		u := r.Update()
		return Value{Ring: &u}, nil
	default:
		c, err := h.Channels(ctx, netdev)
		if err != nil {
			return Value{}, err
		}
		u := c.Update()
		return Value{Channels: &u}, nil
	}
}

func (s *liveSystem) write(ctx context.Context, k Kind, t Target, v Value) error {
	switch k {
	case KindMTU, KindLink, KindRing, KindChannels:
		h, err := s.nic(t.Netns)
		if err != nil {
			return err
		}
		switch k {
		case KindMTU:
			_, err = h.SetMTU(ctx, t.Netdev, v.MTU)
		case KindLink:
			_, err = h.SetUp(ctx, t.Netdev, *v.Up)
		case KindRing:
			_, err = h.SetRing(ctx, t.Netdev, *v.Ring)
		default:
			_, err = h.SetChannels(ctx, t.Netdev, *v.Channels)
		}
		return err
	case KindRXE:
		return s.writeRXE(ctx, t, *v.RXE)
	case KindAffinity:
		_, err := s.irq.SetAffinity(t.IRQ, v.CPUs)
		return err
	case KindGovernor:
		_, err := s.irq.SetGovernors([]irq.CPUGovernor{{CPU: t.CPU, Governor: v.Governor}})
		return err
	case KindSysctl:
		return writeSysctl(s.irq.ProcRoot(), t.Netns, t.Key, *v.Sysctl)
	case KindFeatures:
		return s.writeFeatures(ctx, t, v.Features)
	case KindCoalesce:
		h, err := s.nic(t.Netns)
		if err != nil {
			return err
		}
		_, err = h.SetCoalesce(ctx, t.Netdev, *v.Coalesce)
		return err
	case KindIRQBalance:
		return writeIRQBalance(s.irq, *v.IRQBalance)
	case KindNetns, KindVeth:
		return writeTopology(ctx, k, t, v)
	case KindProcess:
		return writeProcess(ctx, t, v)
	}
	return fmt.Errorf("tune: unknown kind %q", k)
}

// writeRXE makes an rxe link present on its netdev or absent; a link that
// already is as wanted is left alone.
func (s *liveSystem) writeRXE(ctx context.Context, t Target, want RXELink) error {
	h, err := s.rxe(t.Netns)
	if err != nil {
		return err
	}
	if !want.Present {
		_, err := h.DeleteLink(ctx, t.Link)
		if errors.Is(err, rxe.ErrDeviceNotFound) {
			return nil
		}
		return err
	}
	_, err = h.AddLink(ctx, t.Link, want.Netdev)
	if errors.Is(err, rxe.ErrLinkExists) {
		if l, lerr := h.LinkByName(ctx, t.Link); lerr == nil && l.Netdev() == want.Netdev {
			return nil
		}
	}
	return err
}

func (s *liveSystem) onlineCPUs() (irq.CPUList, error) { return s.irq.OnlineCPUs() }

func (s *liveSystem) irqExists(n int) error {
	dir := s.irq.ProcRoot() + "/irq/" + strconv.Itoa(n)
	if err := ValidatePath(s.irq.ProcRoot(), dir); err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return &InputError{Field: "irq", Value: strconv.Itoa(n), Reason: "no such IRQ (" + err.Error() + ")"}
	}
	return nil
}

func (s *liveSystem) close() error {
	var errs []error
	for _, h := range s.nics {
		errs = append(errs, h.Close())
	}
	for _, h := range s.rxes {
		errs = append(errs, h.Close())
	}
	return errors.Join(errs...)
}
