//go:build !linux

package lab

import "context"

// Run needs Linux (process groups, PDEATHSIG); elsewhere it returns
// ErrUnsupported.
func Run(ctx context.Context, guests []Guest, opt RunOptions) ([]*Result, error) {
	return nil, ErrUnsupported
}
