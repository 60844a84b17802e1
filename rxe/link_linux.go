package rxe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Links lists every RDMA device with the state and netdev of its ports (the
// netdev is named only when it is in the Handle's namespace).
//
// Similar to: rdma link show
func (h *Handle) Links(ctx context.Context) ([]Link, error) {
	if err := h.ready(ctx); err != nil {
		return nil, &Error{Op: "link show", Err: err}
	}
	raw, err := retryDump(ctx, h.nlh.RdmaLinkList)
	if err != nil {
		return nil, classify("link show", "", "", err)
	}
	links := make([]Link, 0, len(raw))
	for _, r := range raw {
		l := Link{Name: r.Attrs.Name, Index: r.Attrs.Index, FirmwareVersion: r.Attrs.FirmwareVersion}
		// The library prints the GUIDs byte-reversed; undo that.
		if g, err := guidFromNetlink(r.Attrs.NodeGuid); err == nil {
			l.NodeGUID = g
		}
		if g, err := guidFromNetlink(r.Attrs.SysImageGuid); err == nil {
			l.SysImageGUID = g
		}
		if l.Ports, err = h.ports(ctx, l.Index); err != nil {
			return nil, classify("link show", l.Name, "", err)
		}
		links = append(links, l)
	}
	return links, nil
}

// ports dumps the ports of device index idx (RDMA_NLDEV_CMD_PORT_GET, which
// the library does not offer: its RdmaLink has no port state or netdev).
func (h *Handle) ports(ctx context.Context, idx uint32) ([]Port, error) {
	msgs, err := retryDump(ctx, func() ([][]byte, error) {
		req := h.request(nldevCmdPortGet, unix.NLM_F_DUMP)
		req.AddData(nl.NewRtAttr(nldevAttrDevIndex, nl.Uint32Attr(idx)))
		return req.Execute(unix.NETLINK_RDMA, 0)
	})
	if err != nil {
		return nil, err
	}
	ports := make([]Port, 0, len(msgs))
	for _, m := range msgs {
		p, err := parsePortMessage(m)
		if err != nil {
			return nil, fmt.Errorf("port dump of device %d: %w", idx, err)
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// LinkByName returns one RDMA device, or an *Error of kind
// ErrDeviceNotFound.
//
// Similar to: rdma link show NAME/
func (h *Handle) LinkByName(ctx context.Context, name string) (Link, error) {
	links, err := h.Links(ctx)
	if err != nil {
		return Link{}, err
	}
	for _, l := range links {
		if l.Name == name {
			return l, nil
		}
	}
	return Link{}, &Error{Op: "link show", Name: name, Kind: ErrDeviceNotFound}
}

// AddLink creates an rxe link on a netdev of the Handle's namespace and
// returns it as the kernel reports it right after (its port may not be
// ACTIVE yet: see WaitActive). The kernel loads rdma_rxe if needed.
// Errors are *Error of kind ErrNetdevNotFound, ErrLinkExists (the name is
// taken, or the netdev already has an rxe link), ErrModuleMissing (with a
// Diagnosis), ErrNetdevUnusable or ErrNoRDMA.
//
// Similar to: rdma link add NAME type rxe netdev NETDEV
func (h *Handle) AddLink(ctx context.Context, name, netdev string) (Link, error) {
	if err := checkName(name); err != nil {
		return Link{}, &Error{Op: opAdd, Name: name, Netdev: netdev, Err: err}
	}
	if err := h.ready(ctx); err != nil {
		return Link{}, &Error{Op: opAdd, Name: name, Netdev: netdev, Err: err}
	}
	h.mu.Lock()
	err := h.nlh.RdmaLinkAdd(name, "rxe", netdev)
	h.mu.Unlock()
	if err != nil {
		return Link{}, classify(opAdd, name, netdev, err)
	}
	return h.LinkByName(ctx, name)
}

// checkName applies the kernel's rules for a new link name (nldev_newlink).
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty link name")
	case strings.Contains(name, "%"):
		return fmt.Errorf("link name %q contains %%", name)
	case len(name) >= 64: // IB_DEVICE_NAME_MAX
		return fmt.Errorf("link name %q longer than 63 bytes", name)
	}
	return nil
}

// DeleteLink removes a soft RDMA link and returns it as it was (name,
// netdev, ports), so that it can be re-created. A missing link is an *Error
// of kind ErrDeviceNotFound, a hardware device one of kind ErrNotSoftLink.
//
// Similar to: rdma link delete NAME
func (h *Handle) DeleteLink(ctx context.Context, name string) (Link, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := h.LinkByName(ctx, name)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Op = opDelete
		}
		return Link{}, err
	}
	req := h.request(nl.RDMA_NLDEV_CMD_DELLINK, unix.NLM_F_ACK)
	req.AddData(nl.NewRtAttr(nldevAttrDevIndex, nl.Uint32Attr(l.Index)))
	if _, err := req.Execute(unix.NETLINK_RDMA, 0); err != nil {
		if errors.Is(err, unix.ENODEV) {
			// Deleted by someone else since the lookup.
			return l, &Error{Op: opDelete, Name: name, Kind: ErrDeviceNotFound, Err: err}
		}
		return l, classify(opDelete, name, l.Netdev(), err)
	}
	return l, nil
}

// WaitActive polls a link until all its ports are ACTIVE with LINK_UP, and
// returns it. It gives up when ctx is done, with an *Error that says the
// last state seen; a link that does not exist fails at once with kind
// ErrDeviceNotFound. An rxe port follows its netdev: it stays DOWN/DISABLED
// while the netdev is down, so a netdev that is administratively down
// fails at once, and one that is up without a carrier after CarrierGrace,
// with a *NetdevDownError (ErrNetdevDown) that names it, its operstate and
// the remedy, instead of waiting until ctx ends.
//
// Similar to: until rdma link show NAME/1 | grep -q 'state ACTIVE'; do sleep 1; done
func (h *Handle) WaitActive(ctx context.Context, name string) (Link, error) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	var last Link
	var route *netlink.Handle // opened when a port is not ACTIVE
	defer func() {
		if route != nil {
			route.Close()
		}
	}()
	since := time.Now()
	for {
		l, err := h.LinkByName(ctx, name)
		switch {
		case err != nil && ctx.Err() == nil:
			return l, err
		case err == nil && l.Active():
			return l, nil
		case err == nil:
			last = l
			if dev := l.Netdev(); dev != "" {
				if route == nil {
					route, _ = netlink.NewHandleAt(h.ns, unix.NETLINK_ROUTE)
				}
				if route != nil {
					if k, err := route.LinkByName(dev); err == nil {
						a := k.Attrs()
						if _, err := NetdevUp(h.opts.Netns, dev, a.Flags&net.FlagUp != 0, a.OperState.String(), since, time.Now()); err != nil {
							return l, err
						}
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			var ports []string
			for _, p := range last.Ports {
				ports = append(ports, p.String())
			}
			return last, &Error{Op: "wait active", Name: name,
				Err: fmt.Errorf("%w; last seen: %s", ctx.Err(), strings.Join(ports, "; "))}
		case <-t.C:
		}
	}
}
