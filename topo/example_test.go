package topo_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/topo"
)

// Two namespaces joined by a veth at MTU 9000, a netserver in one and a
// UDP_STREAM from the other; Close removes it all (needs root).
func ExampleNewPair() {
	ctx := context.Background()
	p, err := topo.NewPair(ctx, "/run/rocekit-topo.journal", topo.PairSpec{Name: "np", MTU: 9000})
	if err != nil {
		fmt.Println(err) // nothing is left behind
		return
	}
	defer p.Close(ctx)
	srv, err := netperf.StartNetserver(ctx, p.B.Runner(), netperf.ServerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Stop(ctx)
	res, err := netperf.Run(ctx, p.A.Runner(), netperf.Options{Test: netperf.TestUDPStream,
		Host: p.B.Addr.String(), Length: 5 * time.Second, MessageSize: 1400})
	if err == nil {
		fmt.Printf("loss %.2f%%\n", 100*res.UDP.LossRatio)
	}
}
