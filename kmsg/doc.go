// Package kmsg reads the kernel log and keeps what a NIC or RDMA test needs:
// the driver's lines of each round (mlx5_core, mlx4, ice, i40e, virtio_net,
// rdma_rxe, …), classified into firmware command and transmit timeouts,
// firmware/health errors (a firmware that did not start among them),
// PCIe/AER errors, allocation failures, link flaps and RDMA messages, each
// with what to do about it.
//
// Parsers are pure and streaming (Parse, NewScanner) and read every textual
// form of the log, recognised line by line: /dev/kmsg records with their
// dictionaries, dmesg -r, dmesg, dmesg -T, and syslog or journal lines
// tagged "kernel:". Read gets the log through a host.Runner: /dev/kmsg read
// without blocking (sequence numbers), else dmesg -r; both need root where
// kernel.dmesg_restrict is 1 (ErrPermission).
//
// A round reads the log before and after, and keeps what is new and the
// device's:
//
//	before, err := kmsg.Read(ctx, host.Local{})
//	// … the round …
//	after, err := kmsg.Read(ctx, host.Local{})
//	recs := kmsg.Filter{Drivers: []string{"mlx5_core"}, Netdevs: []string{"ens1f0np0"}}.
//		Apply(kmsg.Since(before.Records, after.Records))
//	for _, f := range kmsg.Summarize(recs) {
//		fmt.Printf("%s %s ×%d: %s\n", f.Source, f.Name, f.Count, f.Action)
//	}
//
// Similar to: dmesg -r | grep mlx5
package kmsg
