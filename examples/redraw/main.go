// Command redraw draws rounds from stores again: one report.html (the
// findings the rounds alone support, the rounds side by side, the
// pictures inline) and every picture as NAME.svg, for any earlier run.
//
// Each store (-store, comma-separated) becomes a section of the page;
// -name keeps only the rounds of that name, -last N the last N rounds of
// each store.
//
// Usage:
//
//	go run ./examples/redraw -store demo-out/trixie/netperf-udp-tuning/rounds.jsonl -out redrawn
//	go run ./examples/redraw -store rocekit-rounds.jsonl -name ib_send_bw -last 6
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/report/page"
)

func main() {
	stores := flag.String("store", "rocekit-rounds.jsonl", "round stores, comma-separated; one section each")
	name := flag.String("name", "", "only the rounds of this name")
	last := flag.Int("last", 0, "only the last N rounds of each store (0: all)")
	out := flag.String("out", "redrawn", "folder for report.html and the pictures")
	title := flag.String("title", "rocekit rounds", "the page's title")
	flag.Parse()
	if err := run(os.Stderr, strings.Split(*stores, ","), *name, *last, *out, *title); err != nil {
		fmt.Fprintln(os.Stderr, "redraw:", err)
		os.Exit(1)
	}
}

// run loads each store, keeps the rounds asked for and writes the page.
func run(log io.Writer, stores []string, name string, last int, out, title string) error {
	p := page.Page{Title: title, Intro: "Drawn again from " + strings.Join(stores, ", ") + "."}
	for _, path := range stores {
		rounds, res, err := report.OpenStore(path).Query(name)
		if errors.Is(err, report.ErrUnknownName) {
			return fmt.Errorf("%s: %w: %w", path, report.ErrNoData, err) // the names there are, for a typo in -name
		}
		if err != nil {
			return err
		}
		if res.Torn || len(res.Corrupt) > 0 {
			fmt.Fprintf(log, "%s: skipped a torn last line (%v) and %d corrupt lines\n", path, res.Torn, len(res.Corrupt))
		}
		if last > 0 && len(rounds) > last {
			rounds = rounds[len(rounds)-last:]
		}
		if len(rounds) == 0 {
			return fmt.Errorf("%s: %w: no rounds%s", path, report.ErrNoData, map[bool]string{true: " named " + name}[name != ""])
		}
		sec := page.FromRounds(sectionTitle(path), rounds)
		for _, n := range sec.Notes {
			fmt.Fprintf(log, "%s: %s\n", path, n)
		}
		p.Sections = append(p.Sections, sec)
	}
	if len(p.Sections) == 0 {
		return errors.New("no -store given")
	}
	if err := page.WriteFiles(out, p); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s\n", filepath.Join(out, "report.html"))
	return nil
}

// sectionTitle names a store by its folder when it is rounds.jsonl
// ("netperf-udp-tuning"), else by its file name.
func sectionTitle(path string) string {
	if filepath.Base(path) == "rounds.jsonl" {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}
