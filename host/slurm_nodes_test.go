package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func readSlurmData(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/slurm/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseHostlistReal: the nodelist of skypilot#8891 expands to the
// hostnames scontrol printed for it there.
func TestParseHostlistReal(t *testing.T) {
	list := strings.TrimSpace(readSlurmData(t, "skypilot-8891.nodelist"))
	want := strings.Fields(readSlurmData(t, "skypilot-8891.hostnames"))
	got, err := ParseHostlist(list)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseHostlist(%q) = %q, %v; want %q", list, got, err, want)
	}
	got, err = ParseHostlist(strings.TrimSpace(readSlurmData(t, "scoop-30.nodelist")))
	if want := []string{"host001", "host003", "host004", "host006"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("scoop-30: %q, %v; want %q", got, err, want)
	}
	// TACC's lists: a dash in the name before the bracket, lists and ranges.
	cases := map[string][]string{
		"c457-[011-012]":    {"c457-011", "c457-012"},
		"c439-021,c450-033": {"c439-021", "c450-033"},
		"c438-[062,104]":    {"c438-062", "c438-104"},
	}
	lines := strings.Split(strings.TrimSpace(readSlurmData(t, "ood-core-54.nodelists")), "\n")
	if len(lines) != 14 {
		t.Fatalf("%d lists in ood-core-54", len(lines))
	}
	for _, l := range lines {
		got, err := ParseHostlist(l)
		if err != nil || len(got) != 2 {
			t.Errorf("%q: %q, %v; want two hosts", l, got, err)
		}
		if want, ok := cases[l]; ok && !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", l, got, want)
		}
	}
	// All of them in one list, as a job on every one of those nodes would
	// show it: the items split at the commas outside brackets.
	all, err := ParseHostlist(strings.Join(lines, ","))
	if err != nil || len(all) != 28 || all[27] != "c454-064" {
		t.Errorf("joined: %d hosts (%v), last %q", len(all), err, all[len(all)-1])
	}
}

func TestParseHostlistSyntax(t *testing.T) {
	for in, want := range map[string][]string{
		"node[01-03,07],gpu5": {"node01", "node02", "node03", "node07", "gpu5"},
		"rack[0-1]_n[1-2]":    {"rack0_n1", "rack0_n2", "rack1_n1", "rack1_n2"},
		"n[8-10]":             {"n8", "n9", "n10"},
		"n[08-10]":            {"n08", "n09", "n10"},
		"a, b":                {"a", "b"},
		"[1-2]x":              {"1x", "2x"},
	} {
		got, err := ParseHostlist(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, keep := range map[string]int{
		"a,n[1-2,b[3-2]": 1, "a,b,n[3-1]": 2, "n]1": 0, "n[1-": 0, "n[x]": 0,
		"n[0-99999999999]": 0, "ok,[]": 1, "n[1-1000][1-1000][1-1000]": 0,
	} {
		got, err := ParseHostlist(in)
		var he *HostlistError
		if !errors.As(err, &he) || !errors.Is(err, ErrParse) || len(got) != keep {
			t.Errorf("ParseHostlist(%q) = %q, %v; want a HostlistError after %d hosts", in, got, err, keep)
		}
	}
}

func FuzzParseHostlist(f *testing.F) {
	f.Add(strings.TrimSpace(readSlurmData(f, "skypilot-8891.nodelist")))
	f.Add("node[01-03,07],gpu5")
	f.Add("rack[0-1]_n[1-2]")
	f.Add("n[1-")
	f.Fuzz(func(t *testing.T, list string) {
		hosts, err := ParseHostlist(list)
		if len(hosts) > MaxHostlistHosts {
			t.Fatalf("%d hosts", len(hosts))
		}
		if err == nil && strings.TrimSpace(strings.ReplaceAll(list, ",", "")) != "" && !strings.Contains(list, "[") {
			// Without brackets, the list is its comma-separated names.
			var want []string
			for _, n := range strings.Split(list, ",") {
				if n = strings.TrimSpace(n); n != "" {
					want = append(want, n)
				}
			}
			if !slices.Equal(hosts, want) {
				t.Fatalf("%q: %q, want %q", list, hosts, want)
			}
		}
	})
}

func TestSlurmNodes(t *testing.T) {
	list := strings.TrimSpace(readSlurmData(t, "skypilot-8891.nodelist"))
	want := strings.Fields(readSlurmData(t, "skypilot-8891.hostnames"))
	f := &Fake{Scripts: map[string]FakeScript{"scontrol": {Stdout: readSlurmData(t, "skypilot-8891.hostnames")}}}
	t.Setenv("SLURM_JOB_NODELIST", list)
	got, err := SlurmNodes(context.Background(), f, "")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("through scontrol: %q, %v", got, err)
	}
	if argv := f.Argvs(); len(argv) != 1 || !slices.Equal(argv[0], []string{"scontrol", "show", "hostnames", list}) {
		t.Errorf("ran %q", argv)
	}
	noScontrol := &Fake{Strict: true}
	got, err = SlurmNodes(context.Background(), noScontrol, "")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("without scontrol: %q, %v", got, err)
	}
	failing := &Fake{Scripts: map[string]FakeScript{"scontrol": {ExitCode: 1, Stderr: "scontrol: error: Invalid hostlist"}}}
	if _, err := SlurmNodes(context.Background(), failing, "n[1-"); err == nil || errors.Is(err, exec.ErrNotFound) {
		t.Errorf("scontrol failing: %v", err)
	}
	t.Setenv("SLURM_JOB_NODELIST", "")
	if _, err := SlurmNodes(context.Background(), f, ""); !errors.Is(err, ErrNoAllocation) {
		t.Errorf("outside a job: %v", err)
	}
}
