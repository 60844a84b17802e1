package tune

import (
	"errors"
	"runtime"
	"syscall"

	"github.com/vishvananda/netns"
)

// inNetns runs f on an OS thread that entered the named network
// namespace ("" runs f here). The thread is never handed back to other
// goroutines: it ends with the goroutine, namespace and all.
func inNetns(name string, f func() error) error {
	if name == "" {
		return f()
	}
	if err := ValidateNetns(name); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread dies with this goroutine
		ns, err := netns.GetFromName(name)
		if err != nil {
			done <- err
			return
		}
		defer ns.Close()
		if err := netns.Set(ns); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

// signalIRQBalance sends SIGSTOP (pause) or SIGCONT to pid; a process
// gone already is not an error.
func signalIRQBalance(pid int, pause bool) error {
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
