package lab

import (
	"errors"
	"io"
	"time"
)

// ErrUnsupported is returned where the lab needs Linux.
var ErrUnsupported = errors.New("lab: needs Linux")

// ErrTimeout says a guest was still running at the run's deadline and was
// killed. What it reported until then is kept in its Result.
var ErrTimeout = errors.New("lab: guest timed out")

// ErrIncomplete says a guest stopped before its agent reported the end of
// the plan (a kernel panic, an agent failure, QEMU dying).
var ErrIncomplete = errors.New("lab: guest stopped before finishing its plan")

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
