package runbook

import (
	"context"

	"github.com/rocekit/rocekit/tune"
)

// SetTxQueueLen sets a netdev's transmit queue length in packets, through
// the journal (tune.TxQueueLen): UDP tuning raises it so that a burst of
// datagrams waits instead of being dropped before the driver.
//
// Similar to: ip link set NETDEV txqueuelen N
func (l *Local) SetTxQueueLen(ctx context.Context, netdev string, packets uint32) error {
	return l.apply(ctx, tune.TxQueueLen(l.Netns, netdev, packets))
}

// SetTxQueueLen runs Local.SetTxQueueLen on the peer.
func (p *Peer) SetTxQueueLen(ctx context.Context, netdev string, packets uint32) error {
	_, err := callAs[struct{}](ctx, p, "set-txqueuelen", txQueueLenArg{netdev, packets})
	return err
}

// txQueueLenArg is set-txqueuelen's argument.
type txQueueLenArg struct {
	Netdev  string `json:"netdev"`
	Packets uint32 `json:"txqueuelen"`
}
