package host

import "context"

// Runner is a place where commands run: this host (Local), a network
// namespace of this host (Netns), another host over SSH, or a scripted Fake
// in unit tests.
type Runner interface {
	// Start starts c and returns at once. The process runs until it exits
	// or ctx ends; when ctx ends, its whole process group is killed and
	// Wait reports the context's cause. A program that cannot be found
	// fails Start with a *StartError wrapping exec.ErrNotFound.
	Start(ctx context.Context, c Cmd) (*Process, error)

	// TCPSockets lists the TCP and TCP6 sockets of the runner's network
	// namespace, as /proc/net/tcp and /proc/net/tcp6 show them there.
	//
	// Similar to: cat /proc/net/tcp /proc/net/tcp6
	TCPSockets(ctx context.Context) ([]TCPSocket, error)

	// String names the place, for errors and logs: "local",
	// "netns NAME", "ssh USER@HOST:PORT".
	String() string
}

// Run starts c on r and waits for it: the returned process holds the output
// and status, and the error is Start's or Wait's. It is the one-shot form of
// Start and Wait, for commands that end by themselves.
func Run(ctx context.Context, r Runner, c Cmd) (*Process, error) {
	p, err := r.Start(ctx, c)
	if err != nil {
		return nil, err
	}
	return p, p.Wait(context.WithoutCancel(ctx))
}
