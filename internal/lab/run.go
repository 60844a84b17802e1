package lab

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrUnsupportedOS is returned where the lab needs Linux.
var ErrUnsupportedOS = errors.New("lab: needs Linux")

// ErrTimeout says a guest was still running at the run's deadline and was
// killed. What it reported until then is kept in its Result.
var ErrTimeout = errors.New("lab: guest timed out")

// ErrIncomplete says a guest stopped before its agent reported the end of
// the plan (a kernel panic, an agent failure, QEMU dying).
var ErrIncomplete = errors.New("lab: guest stopped before finishing its plan")

// ErrPeerStopped says a guest was stopped because another guest of the
// same run stopped before finishing its plan: waiting for it (its sshd, its
// server side) could only end at the deadline.
var ErrPeerStopped = errors.New("lab: guest stopped because another guest of the run stopped")

// GuestStoppedError says a guest stopped (a kernel panic, QEMU exiting,
// the agent gone) before its agent reported the end of its plan. It
// matches ErrIncomplete and quotes the kernel's crash report when the
// console has one.
type GuestStoppedError struct {
	Guest   string
	After   time.Duration // since QEMU started
	Started bool          // a step of its plan had started (false: a boot-time crash)
	QEMU    string        // QEMU's exit status and its own messages
	Oops    string        // the first kernel crash report on the console (Oops)
	Tail    string        // the console's end, when there is no crash report
}

// Error names the guest, when it stopped and why, with the oops.
func (e *GuestStoppedError) Error() string {
	when := "while booting, before its plan started"
	if e.Started {
		when = "before finishing its plan"
	}
	msg := fmt.Sprintf("lab: guest %s stopped after %v %s (qemu: %s)", e.Guest, e.After, when, e.QEMU)
	if e.Oops != "" {
		return msg + "; the kernel crashed:\n" + e.Oops
	}
	return msg + "; no kernel crash report on its console, which ends:\n" + e.Tail
}

// Is matches ErrIncomplete.
func (e *GuestStoppedError) Is(target error) bool { return target == ErrIncomplete }

// poweroffGrace is how long a guest may take to power off after its agent
// reported the end of the plan.
const poweroffGrace = 30 * time.Second

// RunOptions tune a run.
type RunOptions struct {
	// Agent is the path of the labinit binary (see BuildAgent).
	Agent string
	// Live, if set, receives the steps' output and progress lines as they
	// arrive. It must be safe for concurrent use when several guests run.
	Live io.Writer
	// Suite is exported to the guests as ROCEKIT_LAB_SUITE; default: the
	// guest image's suite.
	Suite string
	// KeepDir keeps the run folder (initrds, console logs) for debugging.
	KeepDir bool
	// QEMU is the emulator binary; default qemu-system-x86_64.
	QEMU string
}
