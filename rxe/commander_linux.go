package rxe

import (
	"context"
	"os/exec"
)

// LocalCommander runs programs on this host with os/exec. The context kills
// the program when it is done.
func LocalCommander() Commander { return localCommander{} }

type localCommander struct{}

// Output runs name with args and returns its combined output; a failure is
// an error that keeps the output (see Error.Output for LoadModule).
func (localCommander) Output(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}
