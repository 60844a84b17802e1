// Package rxe manages soft-RoCE (rdma_rxe) links and reads the GID table of
// any RDMA device. It replaces the first half of the soft-RoCE runbook:
//
//	modprobe rdma_rxe                        # LoadModule, Root.RXEModule
//	rdma link add rxe0 type rxe netdev eth0  # Handle.AddLink
//	rdma link show                           # Handle.Links, Handle.WaitActive
//	show_gids                                # Root.GIDTables
//	show_gids > gids.txt (on another host)   # ParseShowGIDs
//	ib_send_bw -x IDX ...                    # SelectGID, CheckCompatible
//	rdma statistic show link rxe0/1          # Root.PortCounters, PortCounters.Sub
//	cat .../ports/1/{hw_counters,counters}/* # Root.PortCounters, ParseRDMAStatistic
//
// Files under /sys, /proc and /lib/modules are read through a Root, so the
// same code runs on a live kernel and on fixture trees captured from one
// (see testdata/README). Root is a sysroot.Root, as nic.Root and irq.Root
// are, so one value serves all three: rxe.Root(sysroot.Dir(dir)); Options.Root
// takes the same value. Links are changed over netlink (NETLINK_RDMA,
// github.com/vishvananda/netlink) by a Handle bound to the caller's or a
// named network namespace; that part is Linux-only and returns
// ErrUnsupportedOS elsewhere. A kernel without RDMA support gives ErrNoRDMA.
//
// Typical use:
//
//	if _, err := rxe.LoadModule(ctx, rxe.Root{}, nil); err != nil {
//		return err // errors.Is(err, rxe.ErrModuleMissing): see (*rxe.Error).Diagnosis
//	}
//	h, err := rxe.Open(rxe.Options{})
//	if err != nil {
//		return err
//	}
//	defer h.Close()
//	if _, err := h.AddLink(ctx, "rxe0", "eth0"); err != nil {
//		return err
//	}
//	if _, err := h.WaitActive(ctx, "rxe0"); err != nil {
//		return err
//	}
//	table, err := rxe.Root{}.GIDTable("rxe0", 1)
//	if err != nil {
//		return err
//	}
//	sel, err := rxe.SelectGID(table, rxe.SelectOptions{})
//	fmt.Println(sel.Reason) // index 1: RoCE v2, IPv4-mapped 198.18.20.1, netdev eth0; score 112 ...
//
// GID selection mirrors perftest, which picks its own index on each side when
// -x is not given; SelectOptions.Policy chooses between the algorithm of
// perftest 4.5 to 25.01 (get_best_gid_index, observed in the lab images) and
// the scoring of later releases (compute_gid_score).
package rxe
