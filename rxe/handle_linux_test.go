package rxe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"golang.org/x/sys/unix"
)

// TestOpenWithoutRDMA runs on kernels without RDMA (the development host):
// every RDMA netlink socket fails with EPROTONOSUPPORT, which Open reports
// as ErrNoRDMA, keeping the errno.
func TestOpenWithoutRDMA(t *testing.T) {
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this kernel has RDMA; the lab tests cover it")
	}
	h, err := Open(Options{})
	if err == nil {
		h.Close()
		t.Skip("this kernel has RDMA netlink")
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrNoRDMA) || !errors.Is(err, unix.EPROTONOSUPPORT) {
		t.Fatalf("Open error = %v, want *Error of kind ErrNoRDMA wrapping EPROTONOSUPPORT", err)
	}
	if e.Op != "open" {
		t.Errorf("Op = %q", e.Op)
	}
}

// TestOpenNamedNetnsWithoutRDMA opens the RDMA socket inside a fresh named
// namespace: the same typed error, and the caller's thread is unaffected.
func TestOpenNamedNetnsWithoutRDMA(t *testing.T) {
	labtest.Root(t)
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this kernel has RDMA; the lab tests cover it")
	}
	name, _ := newNetns(t, "rxe")
	_, err := Open(Options{Netns: name})
	if !errors.Is(err, ErrNoRDMA) {
		t.Fatalf("Open(netns %s) error = %v, want ErrNoRDMA", name, err)
	}
}

func TestOpenMissingNetns(t *testing.T) {
	_, err := Open(Options{Netns: "nictest-does-not-exist"})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open(missing netns) error = %v, want os.ErrNotExist", err)
	}
}

// TestLoadModuleWithoutRDMA runs the real modprobe on a kernel without
// rdma_rxe: the error keeps modprobe's output and the diagnosis.
func TestLoadModuleWithoutRDMA(t *testing.T) {
	labtest.Root(t)
	st, err := Root{}.RXEModule()
	if err != nil {
		t.Fatal(err)
	}
	if st.Usable() {
		t.Skip("rdma_rxe is available here; the lab tests cover loading it")
	}
	_, err = LoadModule(context.Background(), Root{}, nil)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrModuleMissing) || !errors.Is(err, fs.ErrNotExist) || e.Diagnosis == "" {
		t.Fatalf("LoadModule error = %v, want ErrModuleMissing (fs.ErrNotExist) with a diagnosis", err)
	}
	t.Logf("%v", err)
}
