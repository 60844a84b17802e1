// Command lab builds and runs the rocekit real-kernel lab: QEMU guests that
// boot Debian kernels with rdma_rxe.
//
//	lab image [-suite bookworm,trixie]      build the guest images (cached)
//	lab run -suite bookworm -- CMD ARGS...  run one command in a guest
//	lab test [-suite ...] [-pkg ./fleet,./rxe] [-run REGEXP]
//	                                        run the packages' lab tests: TestLab* inside a guest of
//	                                        each image, TestGuests* on the host per image (they boot
//	                                        their own guests); one package × suite table; exits 1
//	                                        unless every row is PASS (a row whose tests all
//	                                        skipped is SKIP and fails too)
//	lab fixtures [-suite ...] [-out DIR]    capture real tool outputs into rocekittest/captures
//	lab demo [-suite ...] [-json]           rxe0 and an ib_send_bw pair in each image, parsed
//	lab rxe-errors [-qps 1,8] [-u 14,20]    ib_send_bw pairs between two guests with rxe counter deltas
//
// Images are cached in $ROCEKIT_LAB_CACHE (default ~/.cache/rocekit/lab).
// Everything needs root (debootstrap, and the guests' tools run as root).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "image":
		err = cmdImage(ctx, args)
	case "run":
		err = cmdRun(ctx, args)
	case "test":
		err = cmdTest(ctx, args)
	case "demo":
		err = cmdDemo(ctx, args)
	case "fixtures":
		err = cmdFixtures(ctx, args)
	case "rxe-errors":
		err = cmdRxeErrors(ctx, args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: lab image|run|test|fixtures|demo|rxe-errors [flags]; see go doc ./internal/lab/cmd/lab")
	flag.PrintDefaults()
	os.Exit(2)
}
