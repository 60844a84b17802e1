//go:build !linux

package host

import "context"

// Start returns ErrUnsupportedOS: process groups, PDEATHSIG and /proc are
// Linux's.
func (l Local) Start(ctx context.Context, c Cmd) (*Process, error) {
	return nil, &StartError{Where: l.String(), Argv: c.Argv, Err: ErrUnsupportedOS}
}
