package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// netnsDir is where named namespaces are bind-mounted (ip netns's place).
const netnsDir = "/var/run/netns"

// readTopology reads whether a namespace, or a veth's first end, exists.
// A veth whose namespace is gone is absent (it went with it).
func readTopology(_ context.Context, k Kind, t Target) (Value, error) {
	if k == KindNetns {
		_, err := os.Stat(filepath.Join(netnsDir, t.Netns))
		if errors.Is(err, os.ErrNotExist) {
			return Value{Netns: &NetnsState{}}, nil
		}
		return Value{Netns: &NetnsState{Present: err == nil}}, err
	}
	h, ok, err := netlinkIn(t.Netns)
	if err != nil || !ok {
		return Value{Veth: &VethState{}}, err
	}
	defer h.Close()
	l, err := h.LinkByName(t.Netdev)
	var nf netlink.LinkNotFoundError
	if errors.As(err, &nf) {
		return Value{Veth: &VethState{}}, nil
	}
	if err != nil {
		return Value{}, err
	}
	return Value{Veth: &VethState{Present: true, MTU: l.Attrs().MTU}}, nil
}

// writeTopology creates or removes a namespace or a veth pair.
func writeTopology(_ context.Context, k Kind, t Target, v Value) error {
	if k == KindNetns {
		if v.Netns.Present {
			return createNetns(t.Netns)
		}
		return deleteNetns(t.Netns)
	}
	h, ok, err := netlinkIn(t.Netns)
	if err != nil {
		return err
	}
	if !ok {
		if v.Veth.Present {
			return fmt.Errorf("netns %q: %w", t.Netns, os.ErrNotExist)
		}
		return nil
	}
	defer h.Close()
	if !v.Veth.Present {
		l, err := h.LinkByName(t.Netdev)
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil
		}
		if err != nil {
			return err
		}
		return h.LinkDel(l)
	}
	return createVeth(h, t, *v.Veth)
}

// createVeth adds the pair, then addresses and up on each end.
func createVeth(h *netlink.Handle, t Target, v VethState) error {
	ph, ok, err := netlinkIn(v.PeerNetns)
	if err == nil && !ok {
		err = fmt.Errorf("peer netns %q: %w", v.PeerNetns, os.ErrNotExist)
	}
	if err != nil {
		return err
	}
	defer ph.Close()
	peerNS, err := nsHandle(v.PeerNetns)
	if err != nil {
		return err
	}
	defer peerNS.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: t.Netdev, MTU: v.MTU}, PeerName: v.Peer,
		PeerNamespace: netlink.NsFd(int(peerNS)), PeerMTU: uint32(v.MTU)}
	if err := h.LinkAdd(veth); err != nil {
		return fmt.Errorf("ip link add %s type veth peer %s: %w", t.Netdev, v.Peer, err)
	}
	for _, end := range []struct {
		h          *netlink.Handle
		name, addr string
	}{{h, t.Netdev, v.Addr}, {ph, v.Peer, v.PeerAddr}} {
		l, err := end.h.LinkByName(end.name)
		if err != nil {
			return err
		}
		if end.addr != "" {
			a, err := netlink.ParseAddr(end.addr)
			if err != nil {
				return err
			}
			if err := end.h.AddrAdd(l, a); err != nil {
				return fmt.Errorf("ip addr add %s dev %s: %w", end.addr, end.name, err)
			}
		}
		if err := end.h.LinkSetUp(l); err != nil {
			return fmt.Errorf("ip link set %s up: %w", end.name, err)
		}
	}
	return nil
}

// nsHandle opens a named namespace, or the caller's for "".
func nsHandle(name string) (netns.NsHandle, error) {
	if name == "" {
		return netns.GetFromPid(os.Getpid())
	}
	return netns.GetFromName(name)
}

// netlinkIn opens a netlink handle in a named namespace ("" for the
// caller's); ok is false when the namespace does not exist.
func netlinkIn(name string) (h *netlink.Handle, ok bool, err error) {
	ns, err := nsHandle(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer ns.Close()
	h, err = netlink.NewHandleAt(ns, unix.NETLINK_ROUTE)
	return h, err == nil, err
}

// createNetns makes a named namespace from a thread of its own, which
// enters it and is never handed back (it ends with its goroutine).
func createNetns(name string) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread dies with this goroutine
		ns, err := netns.NewNamed(name)
		if err == nil {
			ns.Close()
		}
		done <- err
	}()
	return <-done
}

// deleteNetns removes a named namespace, also one whose creation stopped
// between the file and its mount.
func deleteNetns(name string) error {
	p := filepath.Join(netnsDir, name)
	if err := unix.Unmount(p, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("umount %s: %w", p, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
