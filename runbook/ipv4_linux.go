package runbook

import (
	"context"
	"errors"
	"fmt"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/nic"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// IPv4 returns the first IPv4 address of a netdev in the side's network
// namespace, read over netlink (a handle in the named namespace for a
// side in one). A Peer reads it on its host: its PrepareRXE and Netdev
// run this there.
//
// Similar to: ip [-n NETNS] -4 addr show dev NETDEV
func (l *Local) IPv4(_ context.Context, netdev string) (string, error) {
	h, err := l.routeHandle()
	if err != nil {
		return "", fmt.Errorf("runbook: address of %s on %s: %w", netdev, l.Name(), err)
	}
	defer h.Close()
	link, err := h.LinkByName(netdev)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			err = fmt.Errorf("%w: %v", nic.ErrNetdevNotFound, err)
		}
		return "", fmt.Errorf("runbook: address of %s on %s: %w", netdev, l.Name(), err)
	}
	addrs, err := h.AddrList(link, netlink.FAMILY_V4)
	if err != nil {
		return "", fmt.Errorf("runbook: address of %s on %s: %w", netdev, l.Name(), err)
	}
	for _, a := range addrs {
		if ip := a.IP.To4(); ip != nil {
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("%w: %s on %s", ErrNoIPv4, netdev, l.Name())
}

// routeHandle is a netlink handle in the side's namespace.
func (l *Local) routeHandle() (*netlink.Handle, error) {
	if l.Netns == "" {
		return netlink.NewHandle()
	}
	if err := host.ValidNetnsName(l.Netns); err != nil {
		return nil, err
	}
	ns, err := netns.GetFromName(l.Netns)
	if err != nil {
		return nil, fmt.Errorf("network namespace %q: %w", l.Netns, err)
	}
	defer ns.Close()
	return netlink.NewHandleAt(ns)
}
