// Package topo builds small test topologies — two network namespaces
// joined by a veth pair with addresses, and an rxe link on one end where
// the kernel has rdma_rxe — for tests and small mains. Every step goes
// through a tune journal (tune.AddNetns, tune.AddVeth, tune.AddRXE), so a
// setup that fails halfway is undone at once, Close removes what was
// made and only that, and after a crash tune.Recover on the journal does.
//
//	tp, err := topo.NewPair(ctx, "/run/rocekit/topo.journal", topo.PairSpec{Name: "np", MTU: 9000})
//	if err != nil { ... }
//	defer tp.Close(ctx)
//	srv, _ := netperf.StartNetserver(ctx, tp.B.Runner(), netperf.ServerOptions{})
//	res, _ := netperf.Run(ctx, tp.A.Runner(), netperf.Options{Test: netperf.TestUDPStream, Host: tp.B.Addr.String()})
//
// Similar to: ip netns add a; ip netns add b; ip link add v0 netns a type
// veth peer name v1 netns b; ip -n a addr add 198.18.100.1/24 dev v0; ...
// and the trap that deletes them.
package topo
