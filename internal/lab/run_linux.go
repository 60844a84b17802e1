package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Run boots the guests together, waits until all have finished their plans
// or ctx ends, and returns one Result per guest, in order, whatever
// happened. The error wraps ErrTimeout when ctx's deadline killed a guest,
// ErrIncomplete (a *GuestStoppedError quoting the kernel's oops) when a
// guest stopped early, or ctx's error on cancel. A guest that stops early
// stops the others at once (ErrPeerStopped): they could only wait for it.
// When a guest crashes while booting, before its plan started, all guests
// are booted once more, said on opt.Live and in each Result's BootRetry.
// No QEMU process outlives Run: each runs in its own process group, which
// is killed on the way out, and dies with the calling process (PDEATHSIG).
func Run(ctx context.Context, guests []Guest, opt RunOptions) ([]*Result, error) {
	if err := validateGuests(guests); err != nil {
		return nil, err
	}
	if opt.Agent == "" {
		return nil, fmt.Errorf("%w: no agent binary", ErrConfig)
	}
	dir, err := os.MkdirTemp("", "rocekit-lab-run-")
	if err != nil {
		return nil, err
	}
	if !opt.KeepDir {
		defer os.RemoveAll(dir)
	}
	results, err := runOnce(ctx, guests, opt, filepath.Join(dir, "1"))
	var stopped *GuestStoppedError
	if !errors.As(err, &stopped) || stopped.Started || ctx.Err() != nil {
		return results, err
	}
	first := err.Error()
	if opt.Live != nil {
		fmt.Fprintf(opt.Live, "lab: %s crashed while booting; booting the guests again, once:\n%s\n", stopped.Guest, first)
	}
	results, err = runOnce(ctx, guests, opt, filepath.Join(dir, "2"))
	for _, r := range results {
		if r != nil {
			r.BootRetry = first
		}
	}
	return results, err
}

// runOnce boots the guests once, in dir.
func runOnce(ctx context.Context, guests []Guest, opt RunOptions, dir string) ([]*Result, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	for network, members := range segments(guests, dir) {
		hub, err := startSegment(segmentHub(dir, network), members)
		if err != nil {
			return nil, fmt.Errorf("lab: segment %s: %w", network, err)
		}
		defer hub.Close()
	}
	results := make([]*Result, len(guests))
	errs := make([]error, len(guests))
	var wg sync.WaitGroup
	for i := range guests {
		p := pathsFor(dir, guests[i].Name)
		results[i] = &Result{Guest: guests[i].Name}
		if err := writeGuestInitrd(guests[i], opt, p.initrd); err != nil {
			return results, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runGuest(ctx, guests, i, p, opt, results[i])
			if errors.Is(errs[i], ErrIncomplete) {
				stop(errs[i]) // the others could only wait for it
			}
		}()
	}
	wg.Wait()
	// The guest that stopped first is the cause; the others say they
	// were stopped for it, which the cause's error already explains.
	var cause *GuestStoppedError
	if errors.As(context.Cause(ctx), &cause) {
		return results, cause
	}
	return results, errors.Join(errs...)
}

// writeGuestInitrd writes the guest's base image followed by its overlay:
// the agent, the plan (with the lab's environment added) and its files.
func writeGuestInitrd(g Guest, opt RunOptions, dst string) error {
	plan := g.Plan
	suite := opt.Suite
	if suite == "" {
		suite = g.Image.Manifest.Suite
	}
	plan.Env = append(append([]string(nil), plan.Env...), EnvSuite+"="+suite, EnvGuest+"="+g.Name)
	pj, err := MarshalPlan(&plan)
	if err != nil {
		return err
	}
	files := append([]OverlayFile{
		{Path: AgentPath, Mode: 0o755, Source: opt.Agent},
		{Path: PlanPath, Mode: 0o644, Data: pj},
	}, g.Files...)
	var overlay writeBuffer
	if err := WriteOverlay(&overlay, files); err != nil {
		return err
	}
	return concatInitrd(dst, g.Image.Initrd, overlay.b)
}

type writeBuffer struct{ b []byte }

func (w *writeBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// runGuest runs one QEMU to its end and fills res.
func runGuest(ctx context.Context, guests []Guest, gi int, p runPaths, opt RunOptions, res *Result) error {
	g := guests[gi]
	ln, err := net.Listen("unix", p.channel)
	if err != nil {
		return err
	}
	defer ln.Close()

	qemu := opt.QEMU
	if qemu == "" {
		qemu = "qemu-system-x86_64"
	}
	cmd := exec.Command(qemu, qemuArgs(guests, gi, p)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var qemuOut writeBuffer // QEMU's own complaints, e.g. a bad option
	cmd.Stdout, cmd.Stderr = &qemuOut, &qemuOut

	col := newCollector(res, &g.Plan, opt.Live)
	readDone := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			readDone <- nil // QEMU exited before it connected
			return
		}
		defer conn.Close()
		readDone <- col.readRecords(conn)
	}()

	began := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("lab: start %s: %w", qemu, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var waitErr error
	reaped := false
	select {
	case waitErr = <-exited:
		reaped = true
	case <-ctx.Done():
	case <-col.done:
		// The agent powers off right after its last record; a guest that
		// does not is killed, since everything it had to say has arrived.
		select {
		case waitErr = <-exited:
			reaped = true
		case <-ctx.Done():
		case <-time.After(poweroffGrace):
		}
	}
	// Whatever happened, nothing of this guest's process group survives,
	// and QEMU is reaped before Run returns.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if !reaped {
		waitErr = <-exited
	}
	ln.Close()
	readErr := <-readDone
	res.Console, _ = os.ReadFile(p.console)

	return guestOutcome(ctx, g.Name, res, time.Since(began).Round(time.Millisecond), waitErr, readErr, qemuOut.b)
}

// guestOutcome says how a guest's run ended: nil when its plan finished,
// else why not (deadline, a peer's stop, cancel, the channel, or its own
// stop with the console's oops).
func guestOutcome(ctx context.Context, guest string, res *Result, elapsed time.Duration, waitErr, readErr error, qemuOut []byte) error {
	var peer *GuestStoppedError
	switch {
	case ctx.Err() != nil && res.Done:
		return nil // finished just as the deadline came
	case errors.As(context.Cause(ctx), &peer):
		return fmt.Errorf("%w: %s killed after %v because %s stopped", ErrPeerStopped, guest, elapsed, peer.Guest)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: %s killed after %v", ErrTimeout, guest, elapsed)
	case ctx.Err() != nil:
		return fmt.Errorf("lab: %s: %w", guest, ctx.Err())
	case readErr != nil:
		return fmt.Errorf("lab: %s: reading results: %w", guest, readErr)
	case !res.Done:
		e := &GuestStoppedError{Guest: guest, After: elapsed, Started: res.planStarted(),
			QEMU: strings.TrimSpace(fmt.Sprintf("%v %s", waitErr, tail(qemuOut, 300))), Oops: Oops(res.Console)}
		if e.Oops == "" {
			e.Tail = tail(bytes.ReplaceAll(res.Console, []byte("\r"), nil), 1500)
		}
		return e
	}
	return nil
}

// tail returns the last n bytes of b as text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
