//go:build !linux

package lab

import (
	"context"
	"io"
)

// Build needs Linux (debootstrap, chroot, flock); elsewhere it returns
// ErrUnsupportedOS.
func (c Cache) Build(ctx context.Context, spec ImageSpec, log io.Writer) (*Image, error) {
	if img, err := c.Lookup(spec); err == nil {
		return img, nil
	}
	return nil, ErrUnsupportedOS
}
