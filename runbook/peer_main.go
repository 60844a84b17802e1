package runbook

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"
)

// PeerAgentMain is rocekit-peer's main on args (without the program
// name): its flags, then one operation and its JSON argument (ServePeer,
// within -timeout), or "serve", a session read from stdin
// (ServePeerSession). It returns the exit code: 0, 1 when the operation
// failed (its reply says why), 2 for bad arguments (the usage is written
// to stderr). A binary that is the agent by other means (a test binary in
// a lab guest) runs the same code through it.
func PeerAgentMain(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("journal-dir", DefaultPeerJournalDir, "where journals of the changes are kept")
	netns := fs.String("netns", "", "network namespace to work in")
	timeout := fs.Duration("timeout", 5*time.Minute, "deadline of the operation")
	protocol := fs.Int("protocol", PeerProtocol, "protocol version of the caller (the near side passes its own)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags] OPERATION [JSON-ARGUMENT]\n\nflags:\n", name)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\noperations:\n")
		WritePeerUsage(stderr, name)
		fmt.Fprintf(stderr, "  %s %s   # a session: requests on stdin, one JSON object a line, replies by id\n", name, sessionOp)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return 2
	}
	var err error
	if fs.Arg(0) == sessionOp && fs.NArg() == 1 {
		// A session lasts as long as its input; each request has its own deadline.
		err = ServePeerSession(ctx, *protocol, *dir, *netns, stdin, stdout)
	} else {
		cctx, cancel := context.WithTimeout(ctx, *timeout)
		err = ServePeer(cctx, *protocol, *dir, *netns, fs.Arg(0), fs.Arg(1), stdout)
		cancel()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
