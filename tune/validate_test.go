package tune

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
	"github.com/rocekit/rocekit/sysroot"
)

func TestValidateNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(string) error
		in   string
		ok   bool
	}{
		{"netdev", ValidateNetdev, "eth0", true},
		{"netdev", ValidateNetdev, "enp59s0f0np0", true},
		{"netdev", ValidateNetdev, "abcdefghijklmno", true}, // 15
		{"netdev", ValidateNetdev, "abcdefghijklmnop", false},
		{"netdev", ValidateNetdev, "", false},
		{"netdev", ValidateNetdev, "eth/0", false},
		{"netdev", ValidateNetdev, "..", false},
		{"netdev", ValidateNetdev, "a..b", false},
		{"netdev", ValidateNetdev, ".", false},
		{"netdev", ValidateNetdev, "eth 0", false},
		{"netdev", ValidateNetdev, "eth0\n", false},
		{"netdev", ValidateNetdev, "eth\t0", false},
		{"netdev", ValidateNetdev, "eth0\x00", false},
		{"netdev", ValidateNetdev, "eth0:1", false},
		{"netns", ValidateNetns, "", true},
		{"netns", ValidateNetns, "tunetest-a", true},
		{"netns", ValidateNetns, "../../etc", false},
		{"netns", ValidateNetns, "a b", false},
		{"rxe", ValidateRXEName, "rxe0", true},
		{"rxe", ValidateRXEName, "rxe%d", false},
		{"rxe", ValidateRXEName, strings.Repeat("r", 64), false},
		{"rxe", ValidateRXEName, "rxe/0", false},
		{"governor", ValidateGovernor, "performance", true},
		{"governor", ValidateGovernor, "../../x", false},
		{"governor", ValidateGovernor, "", false},
	} {
		err := tc.fn(tc.in)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidInput)) {
			t.Errorf("%s %q: %v, want ok=%v", tc.name, tc.in, err, tc.ok)
		}
		var ie *InputError
		if err != nil && (!errors.As(err, &ie) || ie.Value != tc.in || ie.Reason == "") {
			t.Errorf("%s %q: error %#v does not name the value", tc.name, tc.in, err)
		}
	}
}

func TestValidateNumbers(t *testing.T) {
	online := irq.NewCPUList(0, 1, 2, 3)
	for _, tc := range []struct {
		what string
		err  error
		ok   bool
	}{
		{"irq 0", ValidateIRQ(0), true},
		{"irq 27", ValidateIRQ(27), true},
		{"irq -1", ValidateIRQ(-1), false},
		{"irq 2^20", ValidateIRQ(1 << 20), false},
		{"cpus 0-3", ValidateCPUs(irq.NewCPUList(0, 3), online), true},
		{"cpus empty", ValidateCPUs(nil, online), false},
		{"cpus 4", ValidateCPUs(irq.NewCPUList(2, 4), online), false},
		{"mtu 9000", ValidateMTU(9000), true},
		{"mtu 67", ValidateMTU(67), false},
		{"mtu 65536 (lo)", ValidateMTU(65536), true},
		{"mtu 65537", ValidateMTU(65537), false},
		{"mtu -1", ValidateMTU(-1), false},
	} {
		if (tc.err == nil) != tc.ok || (tc.err != nil && !errors.Is(tc.err, ErrInvalidInput)) {
			t.Errorf("%s: %v, want ok=%v", tc.what, tc.err, tc.ok)
		}
	}
}

func TestValidateGIDIndex(t *testing.T) {
	tbl := rxe.GIDTable{Device: "rxe0", Port: 1, Slots: 4, Entries: []rxe.GIDEntry{{Index: 0}, {Index: 1}}}
	for idx, ok := range map[int]bool{0: true, 1: true, 2: false, 4: false, -1: false, 1 << 20: false} {
		if err := ValidateGIDIndex(tbl, idx); (err == nil) != ok || (err != nil && !errors.Is(err, ErrInvalidInput)) {
			t.Errorf("index %d: %v, want ok=%v", idx, err, ok)
		}
	}
}

func TestValidatePath(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		ok         bool
	}{
		{"/proc", "/proc/irq/27", true},
		{"/proc", "/proc", true},
		{"/proc", "/proc/irq/../../etc/passwd", false},
		{"/proc", "/procfoo/irq", false},
		{"/proc", "/etc", false},
		{"proc", "proc/irq", false}, // relative root
	} {
		if err := ValidatePath(tc.root, tc.path); (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidInput)) {
			t.Errorf("ValidatePath(%q, %q) = %v, want ok=%v", tc.root, tc.path, err, tc.ok)
		}
	}
	if _, err := Begin(t.TempDir()+"/j", Options{Root: sysroot.ProcSys("relative/proc", "")}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Begin with a relative root: %v", err)
	}
	// A root on an fs.FS cannot be written: refused before any journal.
	j := t.TempDir() + "/j"
	_, err := Begin(j, Options{Root: sysroot.FromFS(fstest.MapFS{})})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "root" || ie.Value != "fs" {
		t.Errorf("Begin with an fs.FS root: %v; want an InputError on root", err)
	}
	if _, serr := os.Stat(j); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("Begin with an fs.FS root left a journal: %v", serr)
	}
}

// TestApplyInvalidChangesNothing: a batch with one invalid change is
// refused before any change is made or journaled.
func TestApplyInvalidChangesNothing(t *testing.T) {
	zero := uint32(0)
	bad := map[string]Change{
		"netdev with slash":   MTU("", "eth0/..", 9000),
		"netdev too long":     MTU("", "eth0123456789012", 9000),
		"netdev missing":      MTU("", "eth9", 9000),
		"netns with dots":     MTU("../x", "eth0", 9000),
		"mtu too small":       MTU("", "eth0", 10),
		"ring of 0":           Ring("", "eth0", nic.RingUpdate{Rx: &zero}),
		"ring without sizes":  Ring("", "eth0", nic.RingUpdate{}),
		"channels no count":   Channels("", "eth0", nic.ChannelsUpdate{}),
		"rxe bad name":        AddRXE("", "rxe%d", "eth0"),
		"rxe missing netdev":  AddRXE("", "rxe0", "eth9"),
		"rxe bad netdev":      AddRXE("", "rxe0", "a b"),
		"rxe netdev unseen":   DeleteRXE("", "rxe1"),
		"irq negative":        Affinity(-1, irq.NewCPUList(0)),
		"irq missing":         Affinity(99, irq.NewCPUList(0)),
		"cpus offline":        Affinity(27, irq.NewCPUList(0, 8)),
		"cpus empty":          Affinity(27, nil),
		"governor bad":        Governor(0, "perf/../x"),
		"governor cpu absent": Governor(7, "performance"),
		"governor cpu -1":     Governor(-1, "performance"),
		"unknown kind":        {Kind: "sysctl"},
		"link without state":  {Kind: KindLink, Target: Target{Netdev: "eth0"}},
	}
	for name, c := range bad {
		f := newFake()
		f.vals["rxe//rxe1"] = Value{RXE: &RXELink{Present: true}} // its netdev elsewhere
		s := fakeSession(t, f)
		made, err := s.Apply(context.Background(), MTU("", "eth0", 9000), Affinity(28, irq.NewCPUList(1)), c)
		if err == nil || len(made) != 0 {
			t.Errorf("%s: Apply = %v, %v", name, made, err)
			continue
		}
		if len(f.writes) != 0 || len(s.Entries()) != 0 {
			t.Errorf("%s: refused but wrote %v, journaled %v", name, f.writes, s.Entries())
		}
		if b, _ := os.ReadFile(s.Path()); strings.Count(string(b), "\n") != 1 {
			t.Errorf("%s: journal has more than its header:\n%s", name, b)
		}
		if !errors.Is(err, ErrInvalidInput) && !errors.Is(err, errFakeMissing) {
			t.Errorf("%s: error %v is neither invalid input nor a missing target", name, err)
		}
	}
}

func TestApplyAfterClose(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	s.Close()
	if _, err := s.Apply(context.Background(), MTU("", "eth0", 9000)); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
	if _, err := s.Restore(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Restore after Close: %v", err)
	}
	if f.closed != 1 || s.Close() != nil || f.closed != 1 {
		t.Errorf("Close closed the system %d times", f.closed)
	}
}
