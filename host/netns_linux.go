package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// Start starts c in the namespace, in a new process group. A missing
// namespace fails at once with ErrNoNamespace, a missing program with
// exec.ErrNotFound (looked up in the caller's PATH: the namespace shares
// the caller's file system).
//
// Similar to: ip netns exec NAME PROG ARGS &
func (n Netns) Start(ctx context.Context, c Cmd) (*Process, error) {
	path, err := n.path()
	if err != nil {
		return nil, &StartError{Where: n.String(), Argv: append([]string(nil), c.Argv...), Err: err}
	}
	return startExec(ctx, c, n.String(), []string{"ip", "netns", "exec", n.Name}, path)
}

// TCPSockets lists the TCP sockets of the namespace. It reads
// /proc/thread-self/net/tcp{,6} on a locked thread that enters the
// namespace with setns and returns to its own before it is unlocked; if it
// cannot return, it stays locked and the runtime ends it with its
// goroutine. No other goroutine ever runs in the namespace.
//
// Similar to: ip netns exec NAME cat /proc/net/tcp /proc/net/tcp6
func (n Netns) TCPSockets(ctx context.Context) ([]TCPSocket, error) {
	path, err := n.path()
	if err != nil {
		return nil, err
	}
	target, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	type result struct {
		socks []TCPSocket
		err   error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{err: err}
			return
		}
		defer own.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- result{err: fmt.Errorf("host: setns %s: %w", path, err)}
			return
		}
		socks, err := readTCPDir("/proc/thread-self/net")
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		} // else the thread stays locked, and ends with this goroutine
		done <- result{socks, err}
	}()
	r := <-done
	return r.socks, r.err
}

// path returns /run/netns/NAME, or an error wrapping ErrNoNamespace when
// the name is malformed (host.ValidNetnsName, also matched) or the
// namespace does not exist.
func (n Netns) path() (string, error) {
	if err := ValidNetnsName(n.Name); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoNamespace, err)
	}
	p := filepath.Join(NetnsDir, n.Name)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w: %s", ErrNoNamespace, n.Name)
		}
		return "", err
	}
	return p, nil
}
