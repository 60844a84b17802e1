// Command show-gids prints the GID tables of the RDMA devices the way
// NVIDIA's show_gids script does (DEV PORT INDEX GID IPv4 VER NDEV), or as
// JSON, and optionally the index perftest would pick on each port.
//
// Usage:
//
//	show-gids [-json] [-select POLICY] [-ipv6] [-root DIR] [DEV [PORT]]
//
// POLICY is perftest-score, perftest-pairwise or rocev2-ipv4 (see
// rxe.SelectGID). -root reads /sys from a copy of it.
//
// Similar to: show_gids [DEV [PORT]]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, dirRoot); err != nil {
		fmt.Fprintln(os.Stderr, "show-gids:", err)
		os.Exit(1)
	}
}

// row is one line of show_gids.
type row struct {
	Dev   string `json:"dev"`
	Port  int    `json:"port"`
	Index int    `json:"index"`
	GID   string `json:"gid"`
	IPv4  string `json:"ipv4,omitempty"`
	Ver   string `json:"ver"`
	Ndev  string `json:"ndev,omitempty"`
}

// output is the -json document.
type output struct {
	GIDs       []row           `json:"gids"`
	Found      int             `json:"n_gids_found"`
	Selections []rxe.Selection `json:"selections,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// run is main with its input and output passed in; newRoot opens -root.
func run(args []string, w io.Writer, newRoot func(dir string) rxe.Root) error {
	fs := flag.NewFlagSet("show-gids", flag.ContinueOnError)
	fs.SetOutput(w)
	asJSON := fs.Bool("json", false, "print JSON")
	dir := fs.String("root", "/", "read /sys under this directory")
	policy := fs.String("select", "", "also print the GID index `POLICY` picks: perftest-score, perftest-pairwise or rocev2-ipv4")
	ipv6 := fs.Bool("ipv6", false, "with -select, prefer IPv6 GIDs (perftest --ipv6)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	root := newRoot(*dir)
	tables, err := readTables(root, fs.Args())
	if err != nil {
		return err
	}
	var out output
	for _, t := range tables {
		for _, e := range t.Entries {
			// show_gids leaves out the default GID prefix with an empty
			// interface id, as it does zero GIDs (never in the table).
			if e.GID.String() == "fe80:0000:0000:0000:0000:0000:0000:0000" {
				continue
			}
			r := row{Dev: e.Device, Port: e.Port, Index: e.Index, GID: e.GID.String(), Ver: e.Type.Version(), Ndev: e.Netdev}
			if ip, ok := e.IPv4(); ok {
				r.IPv4 = ip.String()
			}
			out.GIDs = append(out.GIDs, r)
		}
	}
	out.Found = len(out.GIDs)
	if *policy != "" {
		p, err := rxe.ParsePolicy(*policy)
		if err != nil {
			if e := cli.OneOf("-select", *policy, "perftest-score", "perftest-pairwise", "rocev2-ipv4"); e != nil {
				return e
			}
			return err
		}
		for _, t := range tables {
			sel, err := rxe.SelectGID(t, rxe.SelectOptions{Policy: p, IPv6: *ipv6})
			if errors.Is(err, rxe.ErrNoGID) {
				out.Warnings = append(out.Warnings, err.Error())
				continue
			}
			if err != nil {
				return err
			}
			out.Selections = append(out.Selections, sel)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printText(w, out)
	return nil
}

// readTables reads all tables, a device's, or one port's.
func readTables(root rxe.Root, args []string) ([]rxe.GIDTable, error) {
	switch len(args) {
	case 0:
		return root.GIDTables()
	case 1, 2:
	default:
		return nil, fmt.Errorf("usage: show-gids [flags] [DEV [PORT]]")
	}
	if len(args) == 2 {
		port, err := strconv.Atoi(args[1])
		if err != nil {
			return nil, fmt.Errorf("port %q: %w", args[1], err)
		}
		t, err := root.GIDTable(args[0], port)
		return []rxe.GIDTable{t}, err
	}
	dev, err := root.Device(args[0])
	if err != nil {
		return nil, err
	}
	var tables []rxe.GIDTable
	for _, p := range dev.Ports {
		t, err := root.GIDTable(dev.Name, p.Port)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// printText prints the table as show_gids does, tabs included.
func printText(w io.Writer, out output) {
	fmt.Fprintf(w, "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n")
	fmt.Fprintf(w, "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n")
	for _, r := range out.GIDs {
		if r.IPv4 != "" {
			fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s  \t%s\t%s\n", r.Dev, r.Port, r.Index, r.GID, r.IPv4, r.Ver, r.Ndev)
		} else {
			fmt.Fprintf(w, "%s\t%d\t%d\t%s\t\t\t%s\t%s\n", r.Dev, r.Port, r.Index, r.GID, r.Ver, r.Ndev)
		}
	}
	fmt.Fprintf(w, "n_gids_found=%d\n", out.Found)
	for _, s := range out.Selections {
		fmt.Fprintf(w, "%s/%d: %s picks %s\n", s.Entry.Device, s.Entry.Port, s.Policy, s.Reason)
	}
	for _, s := range out.Warnings {
		fmt.Fprintln(w, s)
	}
}

// dirRoot reads the tree under dir as if it were "/".
func dirRoot(dir string) rxe.Root { return rxe.Root(sysroot.Dir(dir)) }
