//go:build !linux

package capture

import "context"

// Run captures the selected cases. It needs Linux; elsewhere it returns ErrUnsupportedOS.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	return nil, ErrUnsupportedOS
}
