package nic

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// UDPSocket is one UDP socket of a process, as /proc/PID/net/udp{,6}
// shows it in that process's network namespace.
type UDPSocket struct {
	Local netip.AddrPort `json:"local"`
	// RxQueueBytes and TxQueueBytes are what waits in the socket's
	// buffers at the moment of reading.
	RxQueueBytes uint64 `json:"rx_queue_bytes"`
	TxQueueBytes uint64 `json:"tx_queue_bytes"`
	// Drops counts datagrams the socket dropped since it was made: a full
	// receive buffer, the per-socket view of Udp RcvbufErrors.
	Drops uint64 `json:"drops"`
	Inode uint64 `json:"inode"`
}

// UDPSockets returns the UDP sockets process pid holds (netserver's data
// socket during a UDP_STREAM test), read with prometheus/procfs's NetUDP
// and NetUDP6 below /proc/PID, so the socket table is that of the
// process's own network namespace, and matched to the process by the
// socket inodes of /proc/PID/fd. A process without UDP sockets gives nil.
//
// Similar to: ss -u -a -n -p -e | grep netserver   (its drops: ss -u -m, "d" of skmem)
func (r Root) UDPSockets(pid int) ([]UDPSocket, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("nic: UDP sockets of pid %d: not a process id", pid)
	}
	inodes, err := r.socketInodes(path.Join("proc", strconv.Itoa(pid)))
	if err != nil {
		return nil, err
	}
	return r.UDPSocketsIn(pid, inodes)
}

// UDPSocketsIn returns the UDP sockets of pid's network namespace whose
// inodes are listed, without reading pid's open files: a watch that found
// a process's sockets once (UDPSockets) reads only the table after that,
// a third of the system calls.
func (r Root) UDPSocketsIn(pid int, inodes []uint64) ([]UDPSocket, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("nic: UDP sockets of pid %d: not a process id", pid)
	}
	if len(inodes) == 0 {
		return nil, nil
	}
	osdir, ok := r.sys().OSPath(path.Join("proc", strconv.Itoa(pid)))
	if !ok {
		return nil, fmt.Errorf("nic: UDP sockets of pid %d: procfs needs a directory, not an fs.FS root", pid)
	}
	pfs, err := procfs.NewFS(osdir)
	if err != nil {
		return nil, fmt.Errorf("nic: UDP sockets of pid %d: %w", pid, err)
	}
	var out []UDPSocket
	for _, read := range []func() (procfs.NetUDP, error){pfs.NetUDP, pfs.NetUDP6} {
		if len(out) == len(inodes) {
			break // all found in the IPv4 table: no need to read the IPv6 one
		}
		lines, err := read()
		if errors.Is(err, fs.ErrNotExist) {
			continue // no IPv6 in that namespace
		}
		if err != nil {
			return nil, fmt.Errorf("nic: UDP sockets of pid %d: %w", pid, err)
		}
		for _, l := range lines {
			if !slices.Contains(inodes, l.Inode) {
				continue
			}
			a, _ := netip.AddrFromSlice(l.LocalAddr)
			s := UDPSocket{Local: netip.AddrPortFrom(a.Unmap(), uint16(l.LocalPort)), RxQueueBytes: l.RxQueue, TxQueueBytes: l.TxQueue, Inode: l.Inode}
			if l.Drops != nil {
				s.Drops = *l.Drops
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// socketInodes lists the inodes of the sockets open in dir/fd.
func (r Root) socketInodes(dir string) ([]uint64, error) {
	fsys := r.fs()
	ents, err := fs.ReadDir(fsys, path.Join(dir, "fd"))
	if err != nil {
		return nil, fmt.Errorf("nic: open files of %s: %w", dir, err)
	}
	var inodes []uint64
	for _, e := range ents {
		target, err := fs.ReadLink(fsys, path.Join(dir, "fd", e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if n, ok := strings.CutPrefix(target, "socket:["); ok {
			if v, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64); err == nil {
				inodes = append(inodes, v)
			}
		}
	}
	return inodes, nil
}
