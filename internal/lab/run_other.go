//go:build !linux

package lab

import "context"

// Run needs Linux (process groups, PDEATHSIG); elsewhere it returns
// ErrUnsupportedOS.
func Run(ctx context.Context, guests []Guest, opt RunOptions) ([]*Result, error) {
	return nil, ErrUnsupportedOS
}
