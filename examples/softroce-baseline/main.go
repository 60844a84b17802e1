// Command softroce-baseline runs the soft-RoCE baseline of the runbook on one
// host in loopback (server and client on the same rxe device; the client
// connects to the netdev's own IPv4 address, which rxe loops back):
//
//  1. make sure rdma_rxe is usable (load it if needed),
//  2. create an rxe link on -netdev, or reuse the one that is there,
//  3. optionally set the netdev's MTU (-mtu),
//  4. wait for the port to be ACTIVE and pick the RoCE v2 GID,
//  5. run ib_send_bw and ib_send_lat pairs with identical parameters -count
//     times each,
//  6. append one round per test to the store (-store) and print a Markdown
//     report: against the previous round of the same name and parameters
//     when the store has one, with findings (jitter and the GID type).
//
// Every change (the rxe link, the MTU) goes through a tune journal (-journal)
// and is undone on exit, also on Ctrl-C; after a crash, the journal is
// restored by tune.Recover.
//
// Usage, as root:
//
//	go run ./examples/softroce-baseline -netdev eth0 [-rxe rxe0] [-mtu 9000] [-count 3] [-n 1000]
//
// Two-host mode (-peer over SSH) is not written yet.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/tune"
)

// config is what the flags set.
type config struct {
	Netdev     string
	RXE        string
	MTU        int
	Count      int
	Iterations int
	Store      string
	Journal    string
	Timeout    time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.Netdev, "netdev", "", "netdev to run rxe on (required)")
	flag.StringVar(&c.RXE, "rxe", "rxe0", "rxe link name to create or reuse")
	flag.IntVar(&c.MTU, "mtu", 0, "netdev MTU for the run (0: leave it); restored on exit")
	flag.IntVar(&c.Count, "count", 3, "runs of each test, each with a fresh pair")
	flag.IntVar(&c.Iterations, "n", 1000, "iterations per run (-n)")
	flag.StringVar(&c.Store, "store", "rocekit-rounds.jsonl", "round store (appended)")
	flag.StringVar(&c.Journal, "journal", "rocekit-journal.jsonl", "journal of the changes made")
	flag.DurationVar(&c.Timeout, "timeout", 30*time.Minute, "deadline of the whole run")
	flag.Parse()
	if c.Netdev == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "softroce-baseline:", err)
		os.Exit(1)
	}
}

// run does the baseline and restores every change it made before it
// returns, whatever happened.
func run(ctx context.Context, c config, out io.Writer) (err error) {
	root := rxe.Root{}
	mod, err := root.RXEModule()
	if err != nil {
		return err
	}
	if !mod.Loaded && !mod.BuiltIn {
		if !mod.Usable() {
			return fmt.Errorf("rdma_rxe is not usable here: %s", mod.Diagnosis())
		}
		if _, err := rxe.LoadModule(ctx, root, nil); err != nil {
			return err
		}
	}
	sess, err := tune.Begin(c.Journal, tune.Options{})
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the run's may be cancelled (Ctrl-C) already.
		rctx, rcancel := context.WithTimeout(context.Background(), time.Minute)
		defer rcancel()
		if _, rerr := sess.Restore(rctx); rerr != nil {
			err = errors.Join(err, fmt.Errorf("restore (journal %s): %w", c.Journal, rerr))
		}
		sess.Close()
	}()

	h, err := rxe.Open(rxe.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	device, err := ensureLink(ctx, h, sess, c)
	if err != nil {
		return err
	}
	if c.MTU > 0 {
		if _, err := sess.Apply(ctx, tune.MTU("", c.Netdev, c.MTU)); err != nil {
			return err
		}
	}
	if _, err := h.WaitActive(ctx, device); err != nil {
		return err
	}
	addr, err := ipv4Of(c.Netdev)
	if err != nil {
		return err
	}
	// The RoCE v2 GID of the address appears a moment after the link.
	if _, err := root.WaitGID(ctx, device, 1, func(e rxe.GIDEntry) bool {
		ip, ok := e.IPv4()
		return ok && ip.String() == addr
	}); err != nil {
		return err
	}
	table, err := root.GIDTable(device, 1)
	if err != nil {
		return err
	}
	sel, err := rxe.SelectGID(table, rxe.SelectOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "# soft-RoCE baseline on %s (%s, %s)\n\nGID index %d: %s\n\n", c.Netdev, device, addr, sel.Entry.Index, sel.Reason)

	store := report.OpenStore(c.Store)
	for _, test := range []perftest.Test{perftest.SendBW, perftest.SendLat} {
		opts := perftest.Options{Test: test, Device: device, GID: perftest.GIDIndex(sel.Entry.Index),
			Iterations: c.Iterations, ReportGbits: true, NoFreqCheck: true}
		start := time.Now()
		pairs, err := perftest.Repeat(ctx, c.Count, host.Local{}, host.Local{}, addr, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", test.Program(), err)
		}
		var results []*perftest.Result
		for _, p := range pairs {
			results = append(results, p.Client.Result)
		}
		round, err := report.FromPerftest(test.Program(), start, results...)
		if err != nil {
			return err
		}
		round.DurationSec = time.Since(start).Seconds()
		round.SetParam("netdev", c.Netdev)
		round.SetParam("netdev_mtu", fmt.Sprint(netdevMTU(c.Netdev)))
		if err := writeRound(out, store, round, sel.Entry); err != nil {
			return err
		}
	}
	return nil
}

// ensureLink reuses an rxe link on the netdev or creates one (journaled).
func ensureLink(ctx context.Context, h *rxe.Handle, sess *tune.Session, c config) (string, error) {
	links, err := h.Links(ctx)
	if err != nil {
		return "", err
	}
	for _, l := range links {
		if l.Netdev() == c.Netdev {
			return l.Name, nil
		}
	}
	if _, err := sess.Apply(ctx, tune.AddRXE("", c.RXE, c.Netdev)); err != nil {
		return "", err
	}
	return c.RXE, nil
}

// writeRound compares the round with the last one of the same name and
// parameters in the store (if any), prints it and the findings, then
// appends it.
func writeRound(out io.Writer, store *report.Store, round report.Round, gid rxe.GIDEntry) error {
	prev, _, err := store.Query(round.Name, round.Params...)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if len(prev) > 0 {
		fmt.Fprintf(out, "## %s against the previous round\n\n", round.Name)
		if err := report.WriteComparisonMarkdown(out, report.Compare(prev[len(prev)-1], round, report.CompareOptions{})); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "## %s (first round: the baseline)\n\n", round.Name)
		if err := report.WriteRoundMarkdown(out, round); err != nil {
			return err
		}
	}
	for _, f := range report.Diagnose(report.DiagnosisInput{Round: &round, GID: &gid}) {
		fmt.Fprintf(out, "- **%s** %s: %s\n", f.Severity, f.Rule, f.Summary)
	}
	fmt.Fprintln(out)
	return store.Append(round)
}

// ipv4Of returns the netdev's first IPv4 address: where the client connects.
func ipv4Of(netdev string) (string, error) {
	ifi, err := net.InterfaceByName(netdev)
	if err != nil {
		return "", err
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.IP.String(), nil
		}
	}
	return "", fmt.Errorf("%s has no IPv4 address: the client needs one to connect to", netdev)
}

func netdevMTU(netdev string) int {
	if ifi, err := net.InterfaceByName(netdev); err == nil {
		return ifi.MTU
	}
	return 0
}
