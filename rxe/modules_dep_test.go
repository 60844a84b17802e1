package rxe

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseModulesDepFixture(t *testing.T) {
	for _, s := range suites {
		sc := suiteCapture(t, s.name)["before-load"]
		b := sc.Files["lib/modules/"+s.release+"/modules.dep"].Data
		deps, err := ParseModulesDep(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if len(deps) < 100 {
			t.Errorf("%s: %d modules, want the whole image's", s.name, len(deps))
		}
		var rxe *ModuleDep
		for i := range deps {
			if deps[i].Name() == "rdma_rxe" {
				rxe = &deps[i]
			}
		}
		if rxe == nil {
			t.Fatalf("%s: rdma_rxe not found", s.name)
		}
		ext := strings.TrimPrefix(s.module, "kernel/drivers/infiniband/sw/rxe/rdma_rxe")
		want := ModuleDep{Path: s.module, Deps: []string{
			"kernel/net/ipv6/ip6_udp_tunnel" + ext, "kernel/net/ipv4/udp_tunnel" + ext,
			"kernel/drivers/infiniband/core/ib_uverbs" + ext, "kernel/drivers/infiniband/core/ib_core" + ext,
		}}
		if d := cmp.Diff(want, *rxe); d != "" {
			t.Errorf("%s: rdma_rxe (-want +got):\n%s", s.name, d)
		}
		builtin, err := ParseModulesBuiltin(strings.NewReader(string(sc.Files["lib/modules/"+s.release+"/modules.builtin"].Data)))
		if err != nil || len(builtin) < 10 {
			t.Errorf("%s: modules.builtin: %d entries, %v", s.name, len(builtin), err)
		}
	}
}

func TestParseModulesDepErrors(t *testing.T) {
	in := "kernel/a.ko:\nkernel/b-c.ko.zst: kernel/a.ko\n\nno colon here\nkernel/d.ko:\n"
	deps, err := ParseModulesDep(strings.NewReader(in))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("err = %v, want ErrParse at line 4", err)
	}
	want := []ModuleDep{{Path: "kernel/a.ko"}, {Path: "kernel/b-c.ko.zst", Deps: []string{"kernel/a.ko"}}}
	if d := cmp.Diff(want, deps); d != "" {
		t.Errorf("rows before the error (-want +got):\n%s", d)
	}
	if deps[1].Name() != "b_c" {
		t.Errorf("Name() = %q, want b_c", deps[1].Name())
	}
	if _, err := ParseModulesBuiltin(strings.NewReader("kernel/a.ko\nkernel/b.ko: x\n")); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("builtin err = %v", err)
	}
}

func FuzzParseModulesDep(f *testing.F) {
	f.Add("kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: kernel/net/ipv4/udp_tunnel.ko.xz\n")
	f.Add("a:\n:\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		deps, err := ParseModulesDep(strings.NewReader(s))
		for _, d := range deps {
			if d.Path == "" {
				t.Fatalf("empty path (err %v)", err)
			}
		}
		_, _ = ParseModulesBuiltin(strings.NewReader(s))
	})
}

func BenchmarkParseModulesDep(b *testing.B) {
	data := suiteCapture(b, "trixie")["before-load"].Files["lib/modules/6.12.117+deb13-amd64/modules.dep"].Data
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseModulesDep(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
}
