//go:build !linux

package host

import "context"

// Start returns ErrUnsupportedOS: network namespaces are Linux's.
func (n Netns) Start(ctx context.Context, c Cmd) (*Process, error) {
	return nil, &StartError{Where: n.String(), Argv: c.Argv, Err: ErrUnsupportedOS}
}

// TCPSockets returns ErrUnsupportedOS: network namespaces are Linux's.
func (n Netns) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	return nil, ErrUnsupportedOS
}
