//go:build !linux

package rxe

import "context"

// Handle changes and lists RDMA links; on this system every method returns
// ErrUnsupportedOS.
type Handle struct{}

// Open returns ErrUnsupportedOS: RDMA links need Linux.
func Open(Options) (*Handle, error) { return nil, ErrUnsupportedOS }

// Close does nothing.
func (h *Handle) Close() error { return nil }

// Links returns ErrUnsupportedOS.
func (h *Handle) Links(context.Context) ([]Link, error) { return nil, ErrUnsupportedOS }

// LinkByName returns ErrUnsupportedOS.
func (h *Handle) LinkByName(context.Context, string) (Link, error) { return Link{}, ErrUnsupportedOS }

// AddLink returns ErrUnsupportedOS.
func (h *Handle) AddLink(context.Context, string, string) (Link, error) {
	return Link{}, ErrUnsupportedOS
}

// DeleteLink returns ErrUnsupportedOS.
func (h *Handle) DeleteLink(context.Context, string) (Link, error) { return Link{}, ErrUnsupportedOS }

// WaitActive returns ErrUnsupportedOS.
func (h *Handle) WaitActive(context.Context, string) (Link, error) { return Link{}, ErrUnsupportedOS }

// Root returns the live system's Root.
func (h *Handle) Root() Root { return Root{} }
