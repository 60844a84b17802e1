package progress_test

import (
	"os"

	"github.com/rocekit/rocekit/progress"
	"github.com/rocekit/rocekit/runbook"
)

// A run of two steps on stdout (not a terminal: one line per step). Pass
// the printer as a runbook.Progress to RunPairs, Sides.PrepareRXE or a
// workflow step's Progress.
func Example() {
	var prog runbook.Progress = progress.New(os.Stdout, 2)
	prog.Step("prepare rxe on %s", "local")
	prog.Step("ib_send_bw run 1 of 1")
	prog.(*progress.Printer).Done()
	// Output:
	// [1/2] prepare rxe on local (0s elapsed, ETA unknown)
	// [2/2] ib_send_bw run 1 of 1 (0s elapsed, ETA unknown)
	// done: 2 steps in 0s
}
