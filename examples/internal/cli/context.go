package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rocekit/rocekit/runbook"
)

// ErrInterrupted is the cause of a run's context cancelled by SIGINT
// (Ctrl-C) or SIGTERM: processes killed for it report it, not "signal KILL".
var ErrInterrupted = errors.New("interrupted")

// Context returns the run's context: cancelled by SIGINT or SIGTERM (cause
// ErrInterrupted, naming the signal), or when timeout passes (0: no
// deadline), so that deferred restores run. A second signal while they run
// exits at once with status 130, after saying on standard error that
// changes may be left and how to undo them.
func Context(timeout time.Duration) (context.Context, context.CancelFunc) {
	return contextOn(timeout, os.Stderr, func() { os.Exit(130) })
}

func contextOn(timeout time.Duration, w io.Writer, exit func()) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(w, "\n%v: stopping and restoring what this run changed; press Ctrl-C again to exit at once without restoring\n", sig)
			cancel(fmt.Errorf("%w by %v", ErrInterrupted, sig))
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(w, "\nexiting without restoring: changes made so far may be left on this host and the peer.\n"+
				"Undo them by running the same example again (it restores its -journal before it starts),\n"+
				"or by hand: rocekit-peer restore on the peer (its journals are in "+runbook.DefaultPeerJournalDir+").")
			exit()
		case <-done:
		}
	}()
	stop := func() {
		signal.Stop(sigs)
		select {
		case <-done:
		default:
			close(done)
		}
		cancel(context.Canceled)
	}
	if timeout <= 0 {
		return ctx, stop
	}
	tctx, tcancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the run's -timeout of %s passed", timeout))
	return tctx, func() { tcancel(); stop() }
}

// Main runs an example's run function under Context(timeout) and exits 1
// with "name: error" on standard error when it fails, 2 when a flag was
// refused (ErrBadFlag), as for a flag that does not parse. run must
// restore what it changed before it returns (the deferred Sides.Restore).
func Main(name string, timeout time.Duration, run func(ctx context.Context) error) {
	ctx, cancel := Context(timeout)
	err := run(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(ExitCode(err))
	}
}

// ExitCode is the exit status for a run's error: 0 for none, 2 for a
// refused flag, else 1.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrBadFlag):
		return 2
	}
	return 1
}
