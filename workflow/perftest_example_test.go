package workflow_test

import (
	"context"
	"fmt"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
	"github.com/rocekit/rocekit/workflow"
)

// A soft-RoCE step on fakes: a captured ib_send_bw pair played twice
// between two fake ends; the round comes back with its parameters, both
// ends' fingerprint and the command lines as run.
func ExampleRunPerftest() {
	c, _ := rocekittest.Lookup("trixie/perftest/send-bw-gbits")
	srv, cli, _ := rocekittest.FakePair(c)
	sides := rocekittest.FakeSidesOn(srv, cli)
	res, err := workflow.RunPerftest(context.Background(), sides, workflow.PerftestStep{
		Options: perftest.Options{Test: perftest.SendBW, Iterations: 300, ReportGbits: true, Port: 18610}, Count: 2})
	fmt.Println(err, res.Measured, res.Round.Name, len(res.Round.Metrics[0].Values))
	mode, _ := res.Round.Param("mode")
	fmt.Println(mode, res.Round.Fingerprint.Kernel)
	fmt.Println(res.Round.Fingerprint.Argv[1].Argv)
	// Output:
	// <nil> true ib_send_bw 2
	// two-host 6.12.0-fake
	// [ib_send_bw -d rxe0 -x 1 -n 300 --report_gbits -p 18610 198.18.0.2]
}
