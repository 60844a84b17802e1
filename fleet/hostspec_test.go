package fleet

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/host"
)

func TestParseHostSpec(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    HostSpec
		wantErr string
	}{
		{in: "a=local:eth0", want: HostSpec{Name: "a", Target: TargetLocal, Netdevs: []string{"eth0"}}},
		{in: "b=root@198.18.1.2:eth0+eth1", want: HostSpec{Name: "b", Target: "root@198.18.1.2", Netdevs: []string{"eth0", "eth1"}}},
		{in: "c=root@198.18.1.3:2222:eth0", want: HostSpec{Name: "c", Target: "root@198.18.1.3:2222", Netdevs: []string{"eth0"}}},
		{in: "n1=srun:n1:ib0", want: HostSpec{Name: "n1", Target: "srun:n1", Netdevs: []string{"ib0"}}},
		{in: "local:eth0", wantErr: `"local:eth0": want NAME=local:NETDEV or NAME=user@host:NETDEV[+NETDEV]`},
		{in: "=local:eth0", wantErr: "want NAME="},
		{in: "a=eth0", wantErr: `"a=eth0": no :NETDEV after the target`},
		{in: "a=local:", wantErr: "no :NETDEV after the target"},
		{in: "a=:eth0", wantErr: "no :NETDEV after the target"},
		{in: "a=local:eth0+", wantErr: `"a=local:eth0+": bad netdev ""`},
		{in: "a=local:../x", wantErr: `bad netdev "../x"`},
	} {
		got, err := ParseHostSpec(c.in)
		if c.wantErr != "" {
			var he *HostSpecError
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, ErrInvalidHostSpec) || !errors.As(err, &he) || he.Spec != c.in {
				t.Errorf("ParseHostSpec(%q) = %+v, %v; want a *HostSpecError with %q", c.in, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.Name != c.want.Name || got.Target != c.want.Target || !slices.Equal(got.Netdevs, c.want.Netdevs) {
			t.Errorf("ParseHostSpec(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// FuzzParseHostSpec: a spec parses into what prints it again, or is a
// *HostSpecError.
func FuzzParseHostSpec(f *testing.F) {
	for _, s := range []string{"a=local:eth0", "b=root@198.18.1.2:eth0+eth1", "n1=srun:n1:ib0", "=:", "a=b:c+ +d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHostSpec(s)
		if err != nil {
			var he *HostSpecError
			if !errors.As(err, &he) || !errors.Is(err, ErrInvalidHostSpec) {
				t.Fatalf("%q: %v is no *HostSpecError", s, err)
			}
			return
		}
		if h.Name == "" || h.Target == "" || len(h.Netdevs) == 0 || h.Name+"="+h.Target+":"+strings.Join(h.Netdevs, "+") != s {
			t.Fatalf("%q: %+v", s, h)
		}
		for _, n := range h.Netdevs {
			if n == "" || strings.ContainsAny(n, " /") {
				t.Fatalf("%q: netdev %q", s, n)
			}
		}
	})
}

// TestSlurmHostSpecs: every node of the host list is a host reached with
// srun (scontrol missing here: the list is expanded by the parser).
func TestSlurmHostSpecs(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	hosts, err := SlurmHostSpecs(context.Background(), host.Local{}, "gpu[01-02],cpu7", "eth0+eth1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hosts {
		names = append(names, h.Name)
	}
	if !slices.Equal(names, []string{"gpu01", "gpu02", "cpu7"}) {
		t.Errorf("names %q", names)
	}
	if h := hosts[1]; h.Target != "srun:gpu02" || !slices.Equal(h.Netdevs, []string{"eth0", "eth1"}) {
		t.Errorf("host %+v", h)
	}
	t.Setenv("SLURM_JOB_NODELIST", "")
	if _, err := SlurmHostSpecs(context.Background(), host.Local{}, "", "eth0"); err == nil {
		t.Error("outside an allocation: no error")
	}
	if _, err := SlurmHostSpecs(context.Background(), host.Local{}, "gpu01", "eth0+"); !errors.Is(err, ErrInvalidHostSpec) {
		t.Errorf("bad netdevs: %v", err)
	}
}

// TestOpenSidesOneLocal: two local hosts are refused before any opens.
func TestOpenSidesOneLocal(t *testing.T) {
	specs := []HostSpec{{Name: "a", Target: TargetLocal, Netdevs: []string{"eth0"}}, {Name: "b", Target: TargetLocal, Netdevs: []string{"eth1"}}}
	sides, err := OpenSides(context.Background(), specs, OpenOptions{Journal: t.TempDir() + "/journal.jsonl"})
	if sides != nil || !errors.Is(err, ErrInvalidHostSpec) || !strings.Contains(err.Error(), "only one host can be local") {
		t.Errorf("OpenSides = %v, %v", sides, err)
	}
}
