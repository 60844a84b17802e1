package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/rxe"
)

// fixtureRoot serves the trixie capture of rxe0 on v0 (2001:2::1 and
// 198.18.20.1) for any -root.
func fixtureRoot(t *testing.T, scen string) func(string) rxe.Root {
	sc := loadCapture(t, "../../rxe/testdata/trixie/capture.txt.gz")[scen]
	return func(string) rxe.Root { return sc.root() }
}

func TestShowGIDsText(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-select", "perftest-pairwise"}, &out, fixtureRoot(t, "rxe0-ipv4")); err != nil {
		t.Fatal(err)
	}
	want := "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n" +
		"---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n" +
		"rxe0\t1\t0\tfe80:0000:0000:0000:5008:edff:fe3c:6b43\t\t\tv2\tv0\n" +
		"rxe0\t1\t1\t2001:0002:0000:0000:0000:0000:0000:0001\t\t\tv2\tv0\n" +
		"rxe0\t1\t2\t0000:0000:0000:0000:0000:ffff:c612:1401\t198.18.20.1  \tv2\tv0\n" +
		"n_gids_found=3\n" +
		"rxe0/1: perftest-pairwise picks index 2: RoCE v2, IPv4-mapped 198.18.20.1, netdev v0; perftest get_best_gid_index keeps the first IPv4-mapped GID\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("output (-want +got):\n%s", d)
	}
}

func TestShowGIDsJSON(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-json", "-select", "rocev2-ipv4", "rxe0", "1"}, &out, fixtureRoot(t, "rxe0-ipv6-only")); err != nil {
		t.Fatal(err)
	}
	var got output
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := output{Found: 2, GIDs: []row{
		{Dev: "rxe0", Port: 1, Index: 0, GID: "fe80:0000:0000:0000:5008:edff:fe3c:6b43", Ver: "v2", Ndev: "v0"},
		{Dev: "rxe0", Port: 1, Index: 1, GID: "2001:0002:0000:0000:0000:0000:0000:0001", Ver: "v2", Ndev: "v0"},
	}}
	if d := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Warnings" }, cmp.Ignore())); d != "" {
		t.Errorf("JSON (-want +got):\n%s", d)
	}
	// No IPv4 address: the runbook rule finds nothing and says why.
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "no RoCE v2 entry with an IPv4 address") {
		t.Errorf("Warnings = %q", got.Warnings)
	}
}

func TestShowGIDsDevice(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"rxe0"}, &out, fixtureRoot(t, "rxe0-ipv4")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "n_gids_found=3\n") {
		t.Errorf("output:\n%s", out.String())
	}
	for _, args := range [][]string{{"rxe9"}, {"rxe0", "x"}, {"rxe0", "2"}, {"a", "b", "c"}, {"-select", "best"}} {
		if err := run(args, &out, fixtureRoot(t, "rxe0-ipv4")); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
	err := run([]string{"-select", "rocev2-ip4"}, &out, fixtureRoot(t, "rxe0-ipv4"))
	if want := `-select "rocev2-ip4": want one of perftest-score, perftest-pairwise, rocev2-ipv4 (did you mean "rocev2-ipv4"?)`; err == nil || err.Error() != want {
		t.Errorf("a policy's typo: %v, want %s", err, want)
	}
	if err := run([]string{"-selcet", "rocev2-ipv4"}, &out, fixtureRoot(t, "rxe0-ipv4")); err == nil || !strings.Contains(err.Error(), "did you mean -select?") {
		t.Errorf("a flag's typo: %v", err)
	}
	// No RDMA at all: an empty table, as show_gids prints.
	out.Reset()
	if err := run(nil, &out, fixtureRoot(t, "before-load")); err != nil || !strings.HasSuffix(out.String(), "n_gids_found=0\n") {
		t.Errorf("before-load: %v\n%s", err, out.String())
	}
}
