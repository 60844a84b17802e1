package rxe

import (
	"context"
	"errors"
	"fmt"

	"github.com/rocekit/rocekit/host"
)

// modprobe runs modprobe through r (nil: this host) and returns its
// stdout and stderr together, as a person would read them.
func modprobe(ctx context.Context, r host.Runner, args ...string) ([]byte, error) {
	if r == nil {
		r = host.Local{}
	}
	p, err := host.Run(ctx, r, host.Cmd{Argv: append([]string{"modprobe"}, args...)})
	if p == nil {
		return nil, err
	}
	out := append(p.Stdout().Bytes(), p.Stderr().Bytes()...)
	var ee *host.ExitError
	if errors.As(err, &ee) {
		// The output is the message; keep the status as the error.
		err = fmt.Errorf("modprobe: %s", ee.Status)
	}
	return out, err
}

// LoadModule loads rdma_rxe unless it is loaded already, and reports whether
// it was loaded before (the state it replaced: when false, UnloadModule
// restores it). When the kernel has no rdma_rxe, or modprobe reports success
// but the module is still absent, the error is an *Error of kind
// ErrModuleMissing whose Diagnosis says which check failed (see
// Root.RXEModule); any failure keeps modprobe's output in Output.
//
// Loading is optional: `rdma link add` loads the module by itself. root is
// where /sys and /lib/modules are checked; r runs modprobe (nil: this
// host; a host.Netns or host.SSH runner loads it there).
//
// Similar to: modprobe rdma_rxe
func LoadModule(ctx context.Context, root Root, r host.Runner) (wasLoaded bool, err error) {
	before, err := root.RXEModule()
	if err != nil {
		return false, err
	}
	if before.Loaded {
		return true, nil
	}
	out, runErr := modprobe(ctx, r, ModuleName)
	if ctx.Err() != nil {
		return false, &Error{Op: "load module", Name: ModuleName, Err: fmt.Errorf("%w (modprobe: %v)", ctx.Err(), runErr), Output: out}
	}
	after, err := root.RXEModule()
	if err != nil {
		return false, err
	}
	if runErr == nil && (after.Loaded || after.BuiltIn) {
		return false, nil
	}
	e := &Error{Op: "load module", Name: ModuleName, Err: runErr, Output: out, Diagnosis: after.Diagnosis()}
	if !after.Usable() {
		e.Kind = ErrModuleMissing
	}
	if e.Err == nil {
		e.Kind = ErrModuleMissing
		e.Err = fmt.Errorf("modprobe succeeded but /sys/module/%s is absent", ModuleName)
	}
	return false, e
}

// UnloadModule removes rdma_rxe (which fails while rxe links exist) and
// reports whether it was loaded before.
//
// Similar to: modprobe -r rdma_rxe
func UnloadModule(ctx context.Context, root Root, r host.Runner) (wasLoaded bool, err error) {
	before, err := root.RXEModule()
	if err != nil {
		return false, err
	}
	if !before.Loaded {
		return false, nil
	}
	out, err := modprobe(ctx, r, "-r", ModuleName)
	if err != nil {
		return true, &Error{Op: "unload module", Name: ModuleName, Err: err, Output: out}
	}
	return true, nil
}
