// Package lab is rocekit's real-kernel lab: it builds Debian guest images
// (bookworm with kernel 6.1 and perftest 4.5-0.17, trixie with kernel 6.12
// and perftest 25.01) that boot from an initramfs under QEMU with software
// emulation, and runs Go binaries inside them as root, so that rxe links,
// GID tables, perftest pairs, IRQ affinity and netperf are exercised on a
// real kernel even where the host has no RDMA.
//
// An image is cached by suite and package list (Cache.Build). Each run adds
// a small overlay archive to the image's initramfs with the guest agent as
// /init, a Plan and the binaries; the agent runs the plan's steps and
// streams their output, exit status and collected files back over a
// dedicated virtio serial port (see Record), never through the kernel log.
// Run enforces a deadline, kills QEMU on timeout or cancel and always
// returns what each guest reported.
//
//	cache := lab.Cache{Dir: lab.DefaultCacheDir()}
//	img, err := cache.Build(ctx, lab.DefaultSpec("bookworm"), os.Stderr)
//	agent, err := lab.BuildAgent(ctx, tmpDir)
//	res, err := lab.Run(ctx, []lab.Guest{{
//		Name: "g1", Image: img, SMP: 4,
//		NICs: []lab.NIC{{Network: "lan"}, {Network: "lan"}}, // two NICs on one hub
//		Plan: lab.Plan{Steps: []lab.Step{{Name: "gids", Path: "/usr/bin/rdma", Args: []string{"link"}}}},
//	}}, lab.RunOptions{Agent: agent})
//	fmt.Printf("%s", res[0].Steps[0].Stdout)
//
// Guests reach nothing outside the run. A Network inside one guest is a
// QEMU hub; one shared by two guests is a point-to-point link; one shared
// by three or more is a shared L2 segment: a hub the harness runs on unix
// datagram sockets in the run folder, so N guests with one NIC each share
// one broadcast domain (addresses from 198.18.0.0/15).
//
// The command internal/lab/cmd/lab wraps this for make: image, run, test
// and fixtures. lab test runs two kinds of lab tests (files with
// //go:build lab): TestLab* tests run inside one guest per suite, and
// TestGuests* tests run on the host, once per suite with ROCEKIT_LAB_SUITES
// set to it, and boot their own guests with Run (several guests joined by
// links or a segment).
package lab
