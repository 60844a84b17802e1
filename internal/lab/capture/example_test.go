package capture_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/rocekit/rocekit/internal/lab/capture"
)

// A parser test reads the record of a captured case and opens the output of one side.
func ExampleReadCase() {
	out, err := os.MkdirTemp("", "capture-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	dir := filepath.Join(out, "perftest", "send-lat")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	err = capture.WriteCase(dir, &capture.Case{
		ID: "perftest/send-lat", Suite: "bookworm", Captured: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Tool: "perftest", Expect: capture.ExpectOK,
		Sides: []capture.Side{
			{Role: capture.RoleServer, Command: "ib_send_lat -d rxe0 -x 1 -F -n 500 -p 18523", Stdout: "server.stdout", Stderr: "server.stderr"},
			{Role: capture.RoleClient, Command: "ib_send_lat -d rxe0 -x 1 -F -n 500 -p 18523 198.18.0.1", Stdout: "client.stdout", Stderr: "client.stderr"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	c, err := capture.ReadCase(dir)
	if err != nil {
		log.Fatal(err)
	}
	client, _ := c.Side(capture.RoleClient)
	fmt.Println(c.ID, c.Expect)
	fmt.Println(client.Command)
	fmt.Println(filepath.Join(c.ID, client.Stdout), client.OK())
	// Output:
	// perftest/send-lat ok
	// ib_send_lat -d rxe0 -x 1 -F -n 500 -p 18523 198.18.0.1
	// perftest/send-lat/client.stdout true
}

// The case table is data: list what a run would capture.
func ExampleCases() {
	for _, s := range capture.Cases(capture.NICVirtio) {
		if s.Group == capture.GroupPerftest && s.Expect == capture.ExpectTimeoutOK {
			fmt.Println(s.ID())
		}
	}
	// Output:
	// perftest/send-bw-infinite
	// perftest/write-bw-infinite
	// perftest/send-bw-size-mismatch
	// perftest/write-bw-size-mismatch
	// perftest/send-bw-iters-mismatch
}
