package nic

import (
	"context"
	"errors"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Stats takes a snapshot of a netdev's driver counters (ethtool -S; none
// for a driver without them) and the kernel's netdev counters.
//
// Similar to: ethtool -S NAME; ip -s -s link show NAME
func (h *Handle) Stats(ctx context.Context, netdev string) (Stats, error) {
	const op = "get stats"
	if err := h.pre(ctx, op, netdev); err != nil {
		return Stats{}, err
	}
	s := Stats{Netdev: netdev, Time: time.Now()}
	eth, err := h.eth.Stats(netdev)
	switch {
	case errors.Is(err, unix.EOPNOTSUPP):
	case err != nil:
		return s, classify(op, netdev, err)
	default:
		s.Ethtool = eth
	}
	l, err := h.link(op, netdev)
	if err != nil {
		return s, err
	}
	s.Link = linkCounters(l.Attrs().Statistics)
	return s, nil
}

// linkCounters names rtnl_link_stats64 as /sys/class/net/NAME/statistics.
func linkCounters(st *netlink.LinkStatistics) map[string]uint64 {
	if st == nil {
		return map[string]uint64{}
	}
	return map[string]uint64{
		"rx_packets": st.RxPackets, "tx_packets": st.TxPackets, "rx_bytes": st.RxBytes, "tx_bytes": st.TxBytes,
		"rx_errors": st.RxErrors, "tx_errors": st.TxErrors, "rx_dropped": st.RxDropped, "tx_dropped": st.TxDropped,
		"multicast": st.Multicast, "collisions": st.Collisions,
		"rx_length_errors": st.RxLengthErrors, "rx_over_errors": st.RxOverErrors, "rx_crc_errors": st.RxCrcErrors,
		"rx_frame_errors": st.RxFrameErrors, "rx_fifo_errors": st.RxFifoErrors, "rx_missed_errors": st.RxMissedErrors,
		"tx_aborted_errors": st.TxAbortedErrors, "tx_carrier_errors": st.TxCarrierErrors, "tx_fifo_errors": st.TxFifoErrors,
		"tx_heartbeat_errors": st.TxHeartbeatErrors, "tx_window_errors": st.TxWindowErrors,
		"rx_compressed": st.RxCompressed, "tx_compressed": st.TxCompressed,
	}
}

// UDP reads the UDP counters of the Handle's namespace (/proc/net/snmp as
// seen from a thread inside it: /proc/thread-self/net/snmp).
//
// Similar to: ip netns exec NS netstat -su
func (h *Handle) UDP(ctx context.Context) (UDPCounters, error) {
	if err := h.ready(ctx); err != nil {
		return UDPCounters{}, err
	}
	var snmp SNMP
	err := h.inNetns(func() error {
		name := "proc/net/snmp"
		if h.ns.IsOpen() {
			name = "proc/thread-self/net/snmp"
		}
		var err error
		snmp, err = h.opts.root().snmpAt(name)
		return err
	})
	if err != nil {
		return UDPCounters{}, err
	}
	return snmp.UDP()
}
