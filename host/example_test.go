package host_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rocekit/rocekit/host"
)

// A server and client pair, the way the perftest and netperf runners use
// host: start the server, wait for its LISTEN socket (never by connecting),
// run the client, stop the server. A Fake stands in for the real tools.
func Example() {
	r := &host.Fake{Scripts: map[string]host.FakeScript{
		"ib_send_bw": {Hang: true, Listen: []uint16{18515}, ListenDelay: 10 * time.Millisecond,
			Stdout: "* Waiting for client to connect... *\n"},
		"ib_send_bw-client": {Stdout: " 65536      1000             0.00               11.23\t\t   0.021419\n"},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	srv, err := r.Start(ctx, host.Cmd{Argv: []string{"ib_send_bw", "-d", "rxe0"}, LineBuffered: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := host.WaitProcessListening(ctx, srv, 18515); err != nil {
		fmt.Println(err)
		return
	}
	cli, err := host.Run(ctx, r, host.Cmd{Argv: []string{"ib_send_bw-client", "-d", "rxe0", "198.18.50.1"}, LineBuffered: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for line := range cli.Stdout().Lines(ctx) {
		fmt.Printf("client: %q\n", line)
	}
	fmt.Println("server stopped:", srv.Stop(ctx), srv.Status())
	fmt.Println(r.Argvs())
	// Output:
	// client: " 65536      1000             0.00               11.23\t\t   0.021419"
	// server stopped: <nil> signal TERM
	// [[ib_send_bw -d rxe0] [ib_send_bw-client -d rxe0 198.18.50.1]]
}

// Arguments are quoted for a POSIX shell, as the SSH runner sends them.
func ExampleQuoteCommand() {
	fmt.Println(host.QuoteCommand([]string{"printf", "%s", "it's $(not run)"}))
	// Output: printf %s 'it'\''s $(not run)'
}
