package netperf_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/netperf"
)

// The runbook's UDP_STREAM test, with netserver in one network namespace
// and netperf in another: netserver is ready when its port listens, and
// the result keeps both sides' figures.
func ExampleRun() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := netperf.StartNetserver(ctx, host.Netns{Name: "server"}, netperf.ServerOptions{Port: 12865})
	if err != nil {
		fmt.Println(err) // errors.Is(err, netperf.ErrPortBusy), exec.ErrNotFound, ...
		return
	}
	defer srv.Stop(ctx)
	res, err := netperf.Run(ctx, host.Netns{Name: "client"}, netperf.Options{
		Test: netperf.TestUDPStream, Host: "198.18.70.1", Port: srv.Port(),
		Length: 30 * time.Second, MessageSize: 1400,
		LocalSocketBuffer: 2 << 20, RemoteSocketBuffer: 2 << 20,
	})
	if err != nil {
		fmt.Println(err) // *netperf.Error with Kind netperf.KindNoServer, ...
		return
	}
	fmt.Printf("sent %.0f Mbit/s, received %.0f Mbit/s, loss %.2f%%\n",
		*res.UDP.SendMbps, *res.UDP.RecvMbps, 100*res.UDP.LossRatio)
}
