package perftest_test

import (
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/perftest"
)

// One Options value gives both command lines of the soft-RoCE runbook,
// each end with its own device and GID index.
func ExampleOptions() {
	o := perftest.Options{
		Test:        perftest.SendBW,
		Server:      perftest.End{Device: "rxe0", GIDIndex: new(3)},
		Client:      perftest.End{Device: "rxe1", GIDIndex: new(1), CPUs: []int{2}},
		Iterations:  10000,
		ReportGbits: true,
	}
	srv, _ := o.ServerArgv()
	cli, _ := o.ClientArgv("198.18.80.1")
	fmt.Println(strings.Join(srv, " "))
	fmt.Println(strings.Join(cli, " "), "on CPUs", o.CPUs(perftest.Client))

	o.Test, o.QPs = perftest.SendLat, 4
	fmt.Println(o.Validate())
	// Output:
	// ib_send_bw -d rxe0 -x 3 -n 10000 --report_gbits -p 18515
	// ib_send_bw -d rxe1 -x 1 -n 10000 --report_gbits -p 18515 198.18.80.1 on CPUs [2]
	// perftest: invalid options: QPs: -q is for BW tests only (ib_send_lat)
}

// A stored round's two command lines read back into one Options: the
// shared fields once, each End from its own line (taskset -c into CPUs).
func ExampleParsePair() {
	o, addr, err := perftest.ParsePair(
		strings.Fields("taskset -c 2 ib_write_bw -d mlx5_0 -x 3 -n 5000 -q 4 --report_gbits -p 18600"),
		strings.Fields("ib_write_bw -d mlx5_1 -x 1 -n 5000 -q 4 --report_gbits -p 18600 -l 4 198.18.0.2"))
	fmt.Println(err)
	fmt.Println(o.Test, o.Iterations, o.QPs, o.Port, addr)
	fmt.Println(o.Server.Device, *o.Server.GIDIndex, o.Server.CPUs)
	fmt.Println(o.Client.Device, *o.Client.GIDIndex, o.Client.Extra)
	// Output:
	// <nil>
	// ib_write_bw 5000 4 18600 198.18.0.2
	// mlx5_0 3 [2]
	// mlx5_1 1 [-l 4]
}
