package nic

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// ProbeMTU proves that the path to dst carries IP packets of mtu bytes
// unfragmented, as `ping -M do -s MTU-28 DST` does: it sends ICMP echoes
// with DF set from the Handle's namespace and waits for the replies. When
// they do not come back it searches down for the largest size that does
// (a switch or router in the middle with a smaller MTU: a router answers
// "fragmentation needed" with its MTU, a switch drops the frame without a
// word, and both are told apart in Evidence). rdma_rxe and perftest see
// only the local netdev's MTU, so this is the one check that a jumbo MTU
// holds end to end. It needs root (a raw socket); IPv4 only.
//
// Similar to: ping -M do -s 8972 -c 2 DST
func (h *Handle) ProbeMTU(ctx context.Context, dst netip.Addr, mtu int, opts MTUProbeOptions) (MTUProbe, error) {
	res := MTUProbe{Dst: dst, MTU: mtu}
	if err := h.ready(ctx); err != nil {
		return res, err
	}
	if !dst.Is4() && !dst.Is4In6() {
		return res, fmt.Errorf("%w: %s: only IPv4 is probed", ErrProbe, dst)
	}
	dst = dst.Unmap()
	if mtu < ipv4HeaderBytes+icmpHeaderBytes+40 || mtu > maxIPv4Packet {
		return res, fmt.Errorf("%w: MTU %d (want 68 to %d)", ErrProbe, mtu, maxIPv4Packet)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 500 * time.Millisecond
	}
	if opts.Tries <= 0 {
		opts.Tries = 2
	}
	var fd int
	err := h.inNetns(func() error {
		var err error
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
		if err != nil {
			return err
		}
		// PROBE: DF on every packet, whatever path MTU the kernel has
		// learned, so each size is tried on the wire.
		return unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_PROBE)
	})
	if err != nil {
		if fd > 0 {
			unix.Close(fd)
		}
		return res, fmt.Errorf("%w: raw ICMP socket: %w", ErrProbe, err)
	}
	defer unix.Close(fd)
	p := &prober{fd: fd, dst: dst, id: uint16(rand.Uint32()), opts: opts, res: &res, why: map[int]string{}}
	// A ping-sized echo first: it resolves ARP (whose queue would drop
	// a round of jumbo echoes) and tells an unreachable host from a
	// small path.
	const small = ipv4HeaderBytes + icmpHeaderBytes + 56
	ok, err := p.round(ctx, []int{small})
	if err != nil {
		return res, err
	}
	if !ok[small] {
		return res, fmt.Errorf("%w: %s does not answer ICMP echo (%s)", ErrProbe, dst, p.why[small])
	}
	if ok, err = p.round(ctx, []int{mtu}); err != nil {
		return res, err
	}
	if ok[mtu] {
		res.Carried, res.LargestMTU = true, mtu
		return res, nil
	}
	res.Evidence = append(res.Evidence, p.why[mtu])
	if opts.NoSearch {
		return res, nil
	}
	res.LargestMTU, err = searchDown(small, mtu, func() []int { return append(p.hints, 1500) }, func(sizes []int) (map[int]bool, error) {
		return p.round(ctx, sizes)
	})
	if why := p.why[res.LargestMTU+1]; why != "" && res.LargestMTU+1 != mtu {
		res.Evidence = append(res.Evidence, why)
	}
	return res, err
}

type prober struct {
	fd    int
	dst   netip.Addr
	id    uint16
	seq   uint16
	opts  MTUProbeOptions
	res   *MTUProbe
	why   map[int]string // size → why it was not carried
	hints []int          // next-hop MTUs routers named
}

// round sends Tries echoes of each size at once and waits one Timeout for
// the answers; it reports which sizes came back and records why the
// others did not.
func (p *prober) round(ctx context.Context, sizes []int) (map[int]bool, error) {
	sa := &unix.SockaddrInet4{Addr: p.dst.As4()}
	size := map[uint16]int{} // seq → size
	ok := map[int]bool{}
	pending := map[int]bool{}
	for try := 0; try < p.opts.Tries; try++ {
		for _, n := range sizes {
			if _, refused := p.why[n]; refused && try > 0 {
				continue
			}
			p.seq++
			p.res.Probes++
			err := unix.Sendto(p.fd, echoRequest(p.id, p.seq, n), 0, sa)
			if errors.Is(err, unix.EMSGSIZE) {
				p.why[n] = fmt.Sprintf("%d B: larger than this host's route or netdev MTU allows (EMSGSIZE)", n)
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%w: send to %s: %w", ErrProbe, p.dst, err)
			}
			size[p.seq] = n
			pending[n] = true
		}
	}
	deadline := time.Now().Add(p.opts.Timeout)
	if d, has := ctx.Deadline(); has && d.Before(deadline) {
		deadline = d
	}
	buf := make([]byte, 1<<16)
	for len(pending) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		tv := unix.NsecToTimeval(min(left, 100*time.Millisecond).Nanoseconds())
		if err := unix.SetsockoptTimeval(p.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrProbe, err)
		}
		n, _, err := unix.Recvfrom(p.fd, buf, 0)
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: receive: %w", ErrProbe, err)
		}
		a, err := parseICMPv4(buf[:n], p.id)
		sz, mine := size[a.Seq]
		if err != nil || !mine || !pending[sz] {
			continue
		}
		switch {
		case a.Reply && a.From == p.dst:
			ok[sz] = true
			delete(pending, sz)
		case a.FragNeeded && a.Dst == p.dst:
			p.why[sz] = fmt.Sprintf("%d B: %s says fragmentation needed, next-hop MTU %d", sz, a.From, a.NextHopMTU)
			if a.NextHopMTU > 0 && !slices.Contains(p.hints, a.NextHopMTU) {
				p.hints = append(p.hints, a.NextHopMTU)
			}
			delete(pending, sz)
		case a.Other && a.Dst == p.dst:
			return nil, fmt.Errorf("%w: %s: destination unreachable (code %d) from %s", ErrProbe, p.dst, a.Code, a.From)
		}
	}
	for n := range pending {
		p.why[n] = fmt.Sprintf("%d B: no reply to a DF echo in %v (%d tries): dropped on the way, as a switch does with a frame above its MTU", n, p.opts.Timeout, p.opts.Tries)
	}
	return ok, nil
}
