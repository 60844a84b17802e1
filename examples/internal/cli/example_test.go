package cli_test

import (
	"fmt"
	"os"

	"github.com/rocekit/rocekit/examples/internal/cli"
)

func ExampleParseList() {
	mtus, err := cli.ParseList("mtus", "9000,1500,4200", 68, 65535)
	fmt.Println(mtus, err)
	_, err = cli.ParseList("mtus", "1500,1500", 68, 65535)
	fmt.Println(err)
	// Output:
	// [1500 4200 9000] <nil>
	// -mtus "1500,1500": 1500 twice
}

func ExampleProgress() {
	prog := cli.NewProgress(os.Stdout, 2)
	prog.Step("prepare rxe on %s", "local")
	prog.Step("ib_send_bw run 1 of 1")
	prog.Done()
	// Output:
	// [1/2] prepare rxe on local (0s elapsed, ETA unknown)
	// [2/2] ib_send_bw run 1 of 1 (0s elapsed, ETA unknown)
	// done: 2 steps in 0s
}
