package nic

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"

	"github.com/prometheus/procfs"
)

// UDPBound returns every UDP socket bound in the Handle's network
// namespace, the kernel's own included (rdma_rxe's RoCE v2 socket on UDP
// 4791 has no process), from /proc/net/udp and udp6 read in that namespace
// with prometheus/procfs (NetUDP, NetUDP6). Drops and inodes are as
// UDPSockets gives them.
//
// Similar to: ss -u -a -n
func (h *Handle) UDPBound(ctx context.Context) ([]UDPSocket, error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	var out []UDPSocket
	err := h.inNetns(func() error {
		// This thread's namespace: /proc/self/net is the main thread's,
		// which a goroutine locked to it may have moved.
		name := "proc/thread-self"
		dir, ok := h.opts.root().sys().OSPath(name)
		if !ok {
			return errors.New("procfs needs a directory, not an fs.FS root")
		}
		pfs, err := procfs.NewFS(dir)
		if err != nil {
			return err
		}
		for _, read := range []func() (procfs.NetUDP, error){pfs.NetUDP, pfs.NetUDP6} {
			lines, err := read()
			if errors.Is(err, fs.ErrNotExist) {
				continue // no IPv6 in the namespace
			}
			if err != nil {
				return err
			}
			for _, l := range lines {
				a, _ := netip.AddrFromSlice(l.LocalAddr)
				s := UDPSocket{Local: netip.AddrPortFrom(a.Unmap(), uint16(l.LocalPort)), RxQueueBytes: l.RxQueue, TxQueueBytes: l.TxQueue, Inode: l.Inode}
				if l.Drops != nil {
					s.Drops = *l.Drops
				}
				out = append(out, s)
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("nic: UDP sockets of the namespace: %w", err)
	}
	return out, nil
}
