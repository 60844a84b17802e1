package rxe

import "context"

// Commander runs a program and returns its combined output. It is how rxe
// starts modprobe; host.Runner (issue 6) will satisfy it, so the module can
// be loaded on a remote host or in a network namespace. A nil Commander
// means LocalCommander.
type Commander interface {
	Output(ctx context.Context, name string, args ...string) ([]byte, error)
}
