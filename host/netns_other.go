//go:build !linux

package host

import "context"

// Start returns ErrUnsupported: network namespaces are Linux's.
func (n Netns) Start(ctx context.Context, c Cmd) (*Process, error) {
	return nil, &StartError{Where: n.String(), Argv: c.Argv, Err: ErrUnsupported}
}

// TCPSockets returns ErrUnsupported: network namespaces are Linux's.
func (n Netns) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	return nil, ErrUnsupported
}
