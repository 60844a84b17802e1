package tune

import (
	"context"
	"errors"
	"os"
	"strconv"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
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
	root sysroot.Root
	irq  irq.Root
	nics map[string]*nic.Handle
	rxes map[string]*rxe.Handle
}

func newLiveSystem(procRoot, sysRoot string) *liveSystem {
	root := sysroot.ProcSys(procRoot, sysRoot)
	return &liveSystem{root: root, irq: irq.Root(root), nics: map[string]*nic.Handle{}, rxes: map[string]*rxe.Handle{}}
}

func (s *liveSystem) nic(ns string) (*nic.Handle, error) {
	if h, ok := s.nics[ns]; ok {
		return h, nil
	}
	h, err := nic.Open(nic.Options{Netns: ns, Root: s.root})
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
	h, err := rxe.Open(rxe.Options{Netns: ns, Root: s.root})
	if err != nil {
		return nil, err
	}
	s.rxes[ns] = h
	return h, nil
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
	dir := s.root.ProcDir() + "/irq/" + strconv.Itoa(n)
	if err := ValidatePath(s.root.ProcDir(), dir); err != nil {
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
