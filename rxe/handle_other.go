//go:build !linux

package rxe

import "context"

// Handle changes and lists RDMA links; on this system every method returns
// ErrUnsupported.
type Handle struct{}

// Open returns ErrUnsupported: RDMA links need Linux.
func Open(Options) (*Handle, error) { return nil, ErrUnsupported }

// Close does nothing.
func (h *Handle) Close() error { return nil }

// Links returns ErrUnsupported.
func (h *Handle) Links(context.Context) ([]Link, error) { return nil, ErrUnsupported }

// LinkByName returns ErrUnsupported.
func (h *Handle) LinkByName(context.Context, string) (Link, error) { return Link{}, ErrUnsupported }

// AddLink returns ErrUnsupported.
func (h *Handle) AddLink(context.Context, string, string) (Link, error) {
	return Link{}, ErrUnsupported
}

// DeleteLink returns ErrUnsupported.
func (h *Handle) DeleteLink(context.Context, string) (Link, error) { return Link{}, ErrUnsupported }

// WaitActive returns ErrUnsupported.
func (h *Handle) WaitActive(context.Context, string) (Link, error) { return Link{}, ErrUnsupported }
