package rxe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/sysroot"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRXEModuleFixtures(t *testing.T) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			caps := suiteCapture(t, s.name)
			before, err := caps["before-load"].root().RXEModule()
			if err != nil {
				t.Fatal(err)
			}
			want := ModuleStatus{KernelRelease: s.release, Available: true, ModulePath: s.module, CoreAvailable: true}
			if d := cmp.Diff(want, before, cmpopts.IgnoreFields(ModuleStatus{}, "Checks")); d != "" {
				t.Errorf("before-load (-want +got):\n%s", d)
			}
			if !before.Usable() || before.Diagnosis() != "" {
				t.Errorf("before-load: Usable %v, Diagnosis %q", before.Usable(), before.Diagnosis())
			}
			after, err := caps["rxe0-ipv4"].root().RXEModule()
			if err != nil {
				t.Fatal(err)
			}
			want.Loaded = true
			if d := cmp.Diff(want, after, cmpopts.IgnoreFields(ModuleStatus{}, "Checks")); d != "" {
				t.Errorf("rxe0-ipv4 (-want +got):\n%s", d)
			}
		})
	}
}

func TestRXEModuleHostWithoutRDMA(t *testing.T) {
	st, err := loadCapture(t, "testdata/host-6.18/capture.txt")["host-no-rdma"].root().RXEModule()
	if err != nil {
		t.Fatal(err)
	}
	want := ModuleStatus{
		KernelRelease: "6.18.44-fc-v669",
		Checks: []Check{
			{Name: "rdma_rxe loaded", Path: "sys/module/rdma_rxe", Detail: "not loaded"},
			{Name: "rdma_rxe built in", Path: "lib/modules/6.18.44-fc-v669/modules.builtin", Detail: "file missing (kernel modules not installed for this release)"},
			{Name: "rdma_rxe installed", Path: "lib/modules/6.18.44-fc-v669/modules.dep", Detail: "file missing (kernel modules not installed for this release)"},
			{Name: "RDMA core (ib_core)", Path: "sys/module/ib_core", Detail: "neither loaded, built in nor installed"},
			{Name: "InfiniBand class", Path: "sys/class/infiniband", OK: true, Detail: "absent"},
		},
	}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("RXEModule (-want +got):\n%s", d)
	}
	diag := st.Diagnosis()
	for _, s := range []string{"6.18.44-fc-v669", "rdma_rxe installed (/lib/modules/6.18.44-fc-v669/modules.dep): file missing", "ib_core", "CONFIG_INFINIBAND"} {
		if !strings.Contains(diag, s) {
			t.Errorf("Diagnosis() = %q, want it to mention %q", diag, s)
		}
	}
}

// fakeCommander is a host.Fake that answers modprobe with a fixed
// result; if load is set, the command "loads" the module into the
// fixture tree.
type fakeCommander struct {
	host.Fake
	calls [][]string
	out   []byte
	err   error
	load  func()
}

func (f *fakeCommander) Start(ctx context.Context, c host.Cmd) (*host.Process, error) {
	f.calls = append(f.calls, c.Argv)
	if f.load != nil && f.err == nil {
		f.load()
	}
	code := 0
	if f.err != nil {
		code = 1
	}
	f.Scripts = map[string]host.FakeScript{"modprobe": {Stderr: string(f.out), ExitCode: code}}
	return f.Fake.Start(ctx, c)
}

func TestLoadModule(t *testing.T) {
	ctx := context.Background()
	caps := suiteCapture(t, "trixie")

	// Already loaded: nothing runs.
	var fc fakeCommander
	was, err := LoadModule(ctx, caps["rxe0-ipv4"].root(), &fc)
	if err != nil || !was || len(fc.calls) != 0 {
		t.Errorf("loaded: LoadModule = %v, %v, calls %v", was, err, fc.calls)
	}

	// Not loaded: modprobe runs and the module appears.
	sc := caps["before-load"]
	loaded := caps["rxe0-ipv4"].Files["sys/module/rdma_rxe"]
	fc = fakeCommander{load: func() { sc.Files["sys/module/rdma_rxe"] = loaded }}
	was, err = LoadModule(ctx, sc.root(), &fc)
	if err != nil || was || !cmp.Equal(fc.calls, [][]string{{"modprobe", "rdma_rxe"}}) {
		t.Errorf("load: LoadModule = %v, %v, calls %v", was, err, fc.calls)
	}

	// modprobe "succeeds" but nothing appears.
	fc = fakeCommander{}
	delete(sc.Files, "sys/module/rdma_rxe")
	_, err = LoadModule(ctx, sc.root(), &fc)
	if !errors.Is(err, ErrModuleMissing) {
		t.Errorf("no effect: err = %v", err)
	}

	// The host without RDMA: modprobe fails; the error keeps its output
	// and says which checks failed.
	host := loadCapture(t, "testdata/host-6.18/capture.txt")["host-no-rdma"].root()
	fc = fakeCommander{out: []byte("modprobe: FATAL: Module rdma_rxe not found in directory /lib/modules/6.18.44-fc-v669\n"), err: errors.New("exit status 1")}
	_, err = LoadModule(ctx, host, &fc)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrModuleMissing) {
		t.Fatalf("host: err = %v, want *Error ErrModuleMissing", err)
	}
	if !bytes.Equal(e.Output, fc.out) || !strings.Contains(e.Diagnosis, "modules.dep") || !strings.Contains(err.Error(), "FATAL") {
		t.Errorf("host: error = %v", err)
	}
}

func TestUnloadModule(t *testing.T) {
	caps := suiteCapture(t, "bookworm")
	var fc fakeCommander
	was, err := UnloadModule(context.Background(), caps["rxe0-ipv4"].root(), &fc)
	if err != nil || !was || !cmp.Equal(fc.calls, [][]string{{"modprobe", "-r", "rdma_rxe"}}) {
		t.Errorf("UnloadModule = %v, %v, %v", was, err, fc.calls)
	}
	fc = fakeCommander{}
	was, err = UnloadModule(context.Background(), caps["before-load"].root(), &fc)
	if err != nil || was || len(fc.calls) != 0 {
		t.Errorf("not loaded: UnloadModule = %v, %v, %v", was, err, fc.calls)
	}
	fc = fakeCommander{out: []byte("modprobe: FATAL: Module rdma_rxe is in use.\n"), err: errors.New("exit status 1")}
	if _, err := UnloadModule(context.Background(), caps["rxe0-ipv4"].root(), &fc); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("in use: err = %v", err)
	}
}

func TestRXEModuleNoRelease(t *testing.T) {
	if _, err := Root(sysroot.Dir(t.TempDir())).RXEModule(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty root: err = %v", err)
	}
}

func TestLoadModuleCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fc := fakeCommander{err: errors.New("signal: killed")}
	_, err := LoadModule(ctx, suiteCapture(t, "trixie")["before-load"].root(), &fc)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrModuleMissing) {
		t.Errorf("cancelled: err = %v, want context.Canceled and no ErrModuleMissing", err)
	}
}

// TestLoadModuleModprobeFails: the module is installed but modprobe fails
// (no modprobe, a missing dependency): an error, but not ErrModuleMissing.
func TestLoadModuleModprobeFails(t *testing.T) {
	fc := fakeCommander{out: []byte("modprobe: ERROR: could not insert 'rdma_rxe': Unknown symbol in module\n"), err: errors.New("exit status 1")}
	_, err := LoadModule(context.Background(), suiteCapture(t, "bookworm")["before-load"].root(), &fc)
	var e *Error
	if !errors.As(err, &e) || errors.Is(err, ErrModuleMissing) || !strings.Contains(err.Error(), "Unknown symbol") {
		t.Errorf("err = %v", err)
	}
}
