package tune

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/rocekit/rocekit/nic"

	"github.com/vishvananda/netlink"
)

// KindTxQueueLen changes a netdev's transmit queue length (txqueuelen:
// the packets its qdisc holds, pfifo_fast's limit). UDP tuning raises it
// so that a burst of datagrams waits in the queue instead of being
// dropped before the driver (ip -s link's TX dropped).
const KindTxQueueLen Kind = "txqueuelen"

// TxQueueLen sets a netdev's transmit queue length in packets (the
// kernel's tx_queue_len is an unsigned 32-bit count); Restore
// sets the old one back. 0 is refused: a device without a queue drops
// every burst its driver cannot take at once.
//
// Similar to: ip -n NETNS link set NETDEV txqueuelen N
func TxQueueLen(netns, netdev string, packets uint32) Change {
	return Change{Kind: KindTxQueueLen, Target: Target{Netns: netns, Netdev: netdev}, New: txQueueLenValue(packets)}
}

// txQueueLen is KindTxQueueLen's value in Value.Ext: {"txqueuelen":1000}.
type txQueueLen struct {
	Packets uint32 `json:"txqueuelen"`
}

func txQueueLenValue(n uint32) Value { return extValue(txQueueLen{n}) }

// TxQueueLen is the transmit queue length a KindTxQueueLen value holds;
// false for a value of another kind.
func (v Value) TxQueueLen() (uint32, bool) {
	q, ok := extOf[txQueueLen](v)
	return q.Packets, ok
}

func init() {
	register(KindTxQueueLen, kindDef{
		validTarget: netdevTarget,
		validNew: func(t Target, v Value) error {
			n, ok := v.TxQueueLen()
			switch {
			case !ok:
				return invalid("txqueuelen", t.Netdev, "no length given")
			case n == 0:
				return invalid("txqueuelen", t.Netdev, "a queue of 0 packets drops every burst")
			}
			return nil
		},
		// The old length came from the kernel: 0 too (a VLAN or a tunnel
		// has no queue).
		validOld: func(_ Target, v Value) error {
			_, ok := v.TxQueueLen()
			return need(ok)
		},
		read: func(_ context.Context, _ *liveSystem, t Target) (Value, error) {
			var n int
			err := inNetns(t.Netns, func() error {
				l, err := netlink.LinkByName(t.Netdev)
				if err == nil {
					n = l.Attrs().TxQLen
				}
				return err
			})
			if err != nil {
				return Value{}, txQueueLenError(t, err)
			}
			return txQueueLenValue(uint32(n)), nil
		},
		write: func(_ context.Context, _ *liveSystem, t Target, v Value) error {
			n, _ := v.TxQueueLen()
			return inNetns(t.Netns, func() error {
				l, err := netlink.LinkByName(t.Netdev)
				if err != nil {
					return txQueueLenError(t, err)
				}
				return netlink.LinkSetTxQLen(l, int(n))
			})
		},
		matches: func(want, got Value) bool {
			w, ok := want.TxQueueLen()
			g, gok := got.TxQueueLen()
			return ok && gok && w == g
		},
		format: func(v Value) string {
			n, _ := v.TxQueueLen()
			return "txqueuelen " + strconv.FormatUint(uint64(n), 10)
		},
	})
}

// txQueueLenError says which netdev could not be found or read; a missing one
// matches nic.ErrNetdevNotFound, as for the kinds nic makes.
func txQueueLenError(t Target, err error) error {
	var nf netlink.LinkNotFoundError
	if errors.As(err, &nf) {
		return fmt.Errorf("txqueuelen of %s: %w", t, nic.ErrNetdevNotFound)
	}
	return fmt.Errorf("txqueuelen of %s: %w", t, err)
}
