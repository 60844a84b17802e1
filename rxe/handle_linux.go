package rxe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// socketTimeout bounds each netlink send and receive.
const socketTimeout = 10 * time.Second

// Handle changes and lists RDMA links over netlink (NETLINK_RDMA) in one
// network namespace. Its sockets are opened in that namespace when the
// Handle is made, so later calls may run on any goroutine. Close it when
// done. A Handle is safe for concurrent use; adds and deletes are
// serialized (the kernel has had races between them).
type Handle struct {
	opts Options
	ns   netns.NsHandle   // netns.None() for the caller's namespace
	nlh  *netlink.Handle  // library calls: link list and add
	sock *nl.SocketHandle // own socket: PORT_GET dumps and DELLINK
	mu   sync.Mutex       // serializes link add and delete
}

// Open makes a Handle for the caller's network namespace or, with
// Options.Netns, a named one. A kernel without RDMA netlink gives an *Error
// of kind ErrNoRDMA.
//
// The RDMA socket is separate from any routing socket on purpose: asking
// vishvananda/netlink for a handle with both families fails as a whole on a
// kernel without RDMA, and a handle without NETLINK_RDMA would send RDMA
// requests from the calling thread's namespace instead of the handle's.
func Open(opts Options) (*Handle, error) {
	h := &Handle{opts: opts, ns: netns.None()}
	if opts.Netns != "" {
		if err := host.ValidNetnsName(opts.Netns); err != nil {
			return nil, fmt.Errorf("rxe: %w", err)
		}
		ns, err := netns.GetFromName(opts.Netns)
		if err != nil {
			return nil, fmt.Errorf("rxe: network namespace %q: %w", opts.Netns, err)
		}
		h.ns = ns
	}
	nlh, err := netlink.NewHandleAt(h.ns, unix.NETLINK_RDMA)
	if err != nil {
		h.closeNS()
		return nil, classify("open", "", "", err)
	}
	h.nlh = nlh
	if err := nlh.SetSocketTimeout(socketTimeout); err != nil {
		h.Close()
		return nil, fmt.Errorf("rxe: netlink socket timeout: %w", err)
	}
	s, err := nl.GetNetlinkSocketAt(h.ns, netns.None(), unix.NETLINK_RDMA)
	if err != nil {
		h.Close()
		return nil, classify("open", "", "", err)
	}
	h.sock = &nl.SocketHandle{Socket: s}
	tv := unix.NsecToTimeval(socketTimeout.Nanoseconds())
	if err := s.SetReceiveTimeout(&tv); err != nil {
		h.Close()
		return nil, fmt.Errorf("rxe: netlink socket timeout: %w", err)
	}
	return h, nil
}

// Close releases the Handle's sockets and namespace.
func (h *Handle) Close() error {
	if h.nlh != nil {
		h.nlh.Close()
		h.nlh = nil
	}
	if h.sock != nil {
		h.sock.Close()
		h.sock = nil
	}
	h.closeNS()
	return nil
}

func (h *Handle) closeNS() {
	if h.ns.IsOpen() {
		h.ns.Close()
		h.ns = netns.None()
	}
}

// errClosed is returned by the methods of a closed Handle.
var errClosed = errors.New("rxe: handle is closed")

// ready checks the context and that the Handle is open.
func (h *Handle) ready(ctx context.Context) error {
	if h == nil || h.nlh == nil || h.sock == nil {
		return errClosed
	}
	return ctx.Err()
}

// request builds an NLDEV request that runs on the Handle's own socket.
func (h *Handle) request(cmd, flags int) *nl.NetlinkRequest {
	req := nl.NewNetlinkRequest(nl.RDMA_NL_NLDEV<<nl.RDMA_NL_GET_CLIENT_SHIFT|cmd, flags)
	req.Sockets = map[int]*nl.SocketHandle{unix.NETLINK_RDMA: h.sock}
	return req
}

// dumpRetries bounds the retries of a dump the kernel interrupted
// (netlink.ErrDumpInterrupted: the list changed while it was read).
const dumpRetries = 5

func retryDump[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var v T
	var err error
	for i := 0; i < dumpRetries; i++ {
		if err := ctx.Err(); err != nil {
			return v, err
		}
		v, err = f()
		if !errors.Is(err, netlink.ErrDumpInterrupted) {
			return v, err
		}
	}
	return v, err
}

// Root returns the reader of the Handle's Options.Root, for the devices,
// ports and GIDs of the links it makes.
func (h *Handle) Root() Root { return Root(h.opts.Root) }
