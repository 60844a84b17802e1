// Command rocekit-peer is the agent the examples' two-host mode (-peer
// user@host) runs on the far host over SSH. Each call does one operation
// of runbook.Local there and prints its JSON result; every change is
// journaled in a file of -journal-dir, and "restore" undoes them all,
// newest first (also after a crash of either host's run). The reply on
// standard output is one JSON object on the last line: {"protocol":7,"result":...}
// or {"protocol":7,"error":{"kind":...,"op":...,"message":...}} (exit 1);
// a lasting operation (watch-udp-sockets) prints {"protocol":7,"ready":true}
// before it once it runs.
//
// "rocekit-peer serve" is a session (protocol 7, what the examples' Peer
// keeps): it says {"protocol":7,"session":true}, then reads requests on
// standard input, one a line, {"id":1,"op":"counters","arg":"eth0","timeout_ns":30000000000}
// ({"id":1,"cancel":true} ends one), runs them concurrently, and answers
// each as above with its "id"; it ends with its input.
//
// Install it on the peer, as root:
//
//	go build -o /usr/local/bin/rocekit-peer ./cmd/rocekit-peer   # then copy it to the peer
//
// Operations (the argument is JSON; runbook.PeerOperations lists them,
// and -h prints them):
//
//	rocekit-peer prepare-rxe '{"netdev":"eth0","name":"rxe0","mtu":9000}'
//	rocekit-peer set-mtu '{"netdev":"eth0","mtu":1500}'
//	rocekit-peer netdev '"eth0"'
//	rocekit-peer counters '"eth0"'
//	rocekit-peer port-counters '"rxe0"'
//	rocekit-peer spread-irqs '"eth0"'
//	rocekit-peer set-governor '"performance"'
//	rocekit-peer set-sysctl '{"key":"net.core.rmem_max","value":"4194304"}'
//	rocekit-peer set-txqueuelen '{"netdev":"eth0","txqueuelen":10000}'
//	rocekit-peer probe-reach '{"to":"near","addr":"198.18.0.1","mtu":9000}'   # don't-fragment echoes of mtu bytes, searching down when they fail
//	rocekit-peer pause-irqbalance
//	rocekit-peer verify   # reads back every change of -journal-dir's journals (tune drift)
//	rocekit-peer watch-udp-sockets '{"pid":4242,"every_ns":20000000}'   # reads the process's UDP sockets until they close (at most 2 min)
//	rocekit-peer host
//	rocekit-peer kernel-log
//	rocekit-peer exec '{"argv":["netserver","-D"]}'   # journaled, then exec'd in place: restore ends it
//	rocekit-peer restore   # undoes every journal of -journal-dir, newest first
//	rocekit-peer restore-since '{"since":"2026-12-01T20:00:00Z"}'   # the calls made since then, newest first
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocekit/rocekit/runbook"
)

// main is runbook.PeerAgentMain, ended early by SIGINT or SIGTERM (the
// operation under way is cancelled and replies).
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runbook.PeerAgentMain(ctx, "rocekit-peer", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
