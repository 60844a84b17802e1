package irq

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"
)

// Affinity is where an IRQ may be delivered and where it is.
type Affinity struct {
	IRQ int
	// CPUs is smp_affinity_list: the CPUs the IRQ may be delivered to.
	CPUs CPUList
	// Effective is effective_affinity_list: the CPUs the kernel actually
	// routes it to now (x86 picks one CPU of CPUs). Nil when the kernel
	// does not provide the file (before 4.13, or architectures without
	// it).
	Effective CPUList
	// ReadOnly is true when smp_affinity_list has no write permission: a
	// managed or per-CPU interrupt that SetAffinity will refuse with
	// ErrNotWritable.
	ReadOnly bool
}

// Affinity reads IRQ irq's affinity. Errors are *AffinityError.
//
// Similar to: cat /proc/irq/N/smp_affinity_list /proc/irq/N/effective_affinity_list
func (fs Root) Affinity(irq int) (Affinity, error) {
	a := Affinity{IRQ: irq}
	p := fs.affinityPath(irq, "smp_affinity_list")
	cpus, err := fs.readCPUList(p)
	if err != nil {
		return a, &AffinityError{IRQ: irq, Err: err}
	}
	a.CPUs = cpus
	w, err := fs.writable(p)
	if err != nil {
		return a, &AffinityError{IRQ: irq, Err: err}
	}
	a.ReadOnly = !w
	eff, err := fs.readCPUList(fs.affinityPath(irq, "effective_affinity_list"))
	switch {
	case err == nil:
		a.Effective = eff
	case errors.Is(err, os.ErrNotExist):
	default:
		return a, &AffinityError{IRQ: irq, Err: err}
	}
	return a, nil
}

func (fs Root) affinityPath(irq int, file string) string {
	return fs.procPath("irq", strconv.Itoa(irq), file)
}

// SetAffinity sets IRQ irq's smp_affinity_list to cpus and returns the list
// it replaced. IRQs that user space cannot move (mode 0444, EIO, EPERM) give
// an *AffinityError that matches ErrNotWritable; a list without an online
// CPU one that matches ErrInvalidCPUs. A read-only file is not written to.
// The kernel may deliver the IRQ to a subset of cpus; read it back with
// Affinity or WaitEffective.
//
// Similar to: echo 0-3 > /proc/irq/N/smp_affinity_list
func (fs Root) SetAffinity(irq int, cpus CPUList) (replaced CPUList, err error) {
	p := fs.affinityPath(irq, "smp_affinity_list")
	old, err := fs.readCPUList(p)
	if err != nil {
		return nil, &AffinityError{IRQ: irq, CPUs: cpus, Err: err}
	}
	if len(cpus) == 0 {
		return old, &AffinityError{IRQ: irq, CPUs: cpus, Err: errEmptyList}
	}
	w, err := fs.writable(p)
	if err != nil {
		return old, &AffinityError{IRQ: irq, CPUs: cpus, Err: err}
	}
	if !w {
		return old, &AffinityError{IRQ: irq, CPUs: cpus, Err: errReadOnly}
	}
	if err := fs.writeKernelFile(p, cpus.String()); err != nil {
		return old, &AffinityError{IRQ: irq, CPUs: cpus, Err: err}
	}
	return old, nil
}

var errEmptyList = errors.New("empty CPU list")

// WaitEffective polls IRQ irq's affinity until its effective CPUs are a
// non-empty subset of want, and returns it. Where the kernel has no
// effective_affinity_list it returns as soon as smp_affinity_list equals
// want. It stops with ctx's error, returning the last affinity read.
func (fs Root) WaitEffective(ctx context.Context, irq int, want CPUList) (Affinity, error) {
	const poll = 20 * time.Millisecond
	for {
		a, err := fs.Affinity(irq)
		if err != nil {
			return a, err
		}
		if a.Effective == nil && a.CPUs.Equal(want) {
			return a, nil
		}
		if len(a.Effective) > 0 && len(a.Effective.Without(want)) == 0 {
			return a, nil
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return a, &AffinityError{IRQ: irq, Err: ctx.Err()}
		case <-t.C:
		}
	}
}
