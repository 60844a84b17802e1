//go:build !linux

package host

import "context"

// Start returns ErrUnsupportedOS: srun runs where Slurm does, on Linux.
func (s Srun) Start(ctx context.Context, c Cmd) (*Process, error) {
	return nil, &StartError{Where: s.String(), Argv: c.Argv, Err: ErrUnsupportedOS}
}
