package cli_test

import (
	"fmt"

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
