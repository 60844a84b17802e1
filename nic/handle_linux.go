package nic

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/rocekit/rocekit/host"
	"github.com/safchain/ethtool"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Handle reads and changes netdevs of one network namespace over netlink
// and ethtool. Its sockets are opened inside that namespace when it is made
// (an ethtool socket only sees the namespace it was created in), so later
// calls may run on any goroutine. Close it when done. Calls on one Handle
// may run concurrently, but changes to the same netdev should not.
type Handle struct {
	opts Options
	ns   netns.NsHandle
	nlh  *netlink.Handle
	eth  *ethtool.Ethtool
}

// Open makes a Handle for the caller's network namespace or, with
// Options.Netns, a named one.
func Open(opts Options) (*Handle, error) {
	h := &Handle{opts: opts, ns: netns.None()}
	if opts.Netns != "" {
		if err := host.ValidNetnsName(opts.Netns); err != nil {
			return nil, fmt.Errorf("nic: %w", err)
		}
		ns, err := netns.GetFromName(opts.Netns)
		if err != nil {
			return nil, fmt.Errorf("nic: network namespace %q: %w", opts.Netns, err)
		}
		h.ns = ns
	}
	nlh, err := netlink.NewHandleAt(h.ns, unix.NETLINK_ROUTE)
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("nic: netlink: %w", err)
	}
	h.nlh = nlh
	err = h.inNetns(func() error {
		var err error
		h.eth, err = ethtool.NewEthtool()
		return err
	})
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("nic: ethtool socket: %w", err)
	}
	return h, nil
}

// Close releases the Handle's sockets and namespace.
func (h *Handle) Close() error {
	if h.eth != nil {
		h.eth.Close()
		h.eth = nil
	}
	if h.nlh != nil {
		h.nlh.Close()
		h.nlh = nil
	}
	if h.ns.IsOpen() {
		h.ns.Close()
		h.ns = netns.None()
	}
	return nil
}

// inNetns runs f on a locked thread inside the Handle's namespace (or
// directly for the caller's). If the thread cannot be switched back it
// stays locked, so the Go runtime discards it instead of reusing it.
func (h *Handle) inNetns(f func() error) error {
	if !h.ns.IsOpen() {
		return f()
	}
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	if err := netns.Set(h.ns); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	ferr := f()
	if err := netns.Set(orig); err != nil {
		return errors.Join(ferr, fmt.Errorf("nic: restore network namespace: %w", err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// errClosed is returned by the methods of a closed Handle.
var errClosed = errors.New("nic: handle is closed")

// ready checks the context and that the Handle is open.
func (h *Handle) ready(ctx context.Context) error {
	if h == nil || h.nlh == nil || h.eth == nil {
		return errClosed
	}
	return ctx.Err()
}

// link looks a netdev up, mapping "not found" to ErrNetdevNotFound.
func (h *Handle) link(op, name string) (netlink.Link, error) {
	l, err := h.nlh.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) || errors.Is(err, unix.ENODEV) {
			return nil, &Error{Op: op, Netdev: name, Kind: ErrNetdevNotFound, Err: err, Netdevs: h.netdevNames()}
		}
		return nil, &Error{Op: op, Netdev: name, Err: err}
	}
	return l, nil
}

// netdevNames lists the namespace's netdevs, for an error that names one
// that is not there; nil when they cannot be listed.
func (h *Handle) netdevNames() []string {
	links, err := h.nlh.LinkList()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(links))
	for _, l := range links {
		names = append(names, l.Attrs().Name)
	}
	return names
}

// classify turns a netlink or ethtool error into an *Error.
func classify(op, netdev string, err error) error {
	e := &Error{Op: op, Netdev: netdev, Err: err}
	switch {
	case errors.Is(err, unix.EOPNOTSUPP):
		e.Kind = ErrNotSupported
	case errors.Is(err, unix.ENODEV):
		e.Kind = ErrNetdevNotFound
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ERANGE):
		e.Kind = ErrInvalidValue
	}
	return e
}

// checkName rejects names the ethtool ioctl would truncate (IFNAMSIZ).
func checkName(op, name string) error {
	if name == "" || len(name) >= unix.IFNAMSIZ {
		return &Error{Op: op, Netdev: name, Kind: ErrNetdevNotFound, Err: fmt.Errorf("invalid netdev name %q", name)}
	}
	return nil
}
