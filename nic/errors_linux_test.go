package nic

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"golang.org/x/sys/unix"
)

// TestRootNetdevNotExist: every read of a netdev that does not exist in a
// fresh namespace fails with ErrNetdevNotFound, which fs.ErrNotExist
// matches too.
func TestRootNetdevNotExist(t *testing.T) {
	h := openIn(t, newNetns(t, "nx"))
	ctx := testCtx(t)
	const name = "nosuch0"
	reads := map[string]func(context.Context, string) error{
		"MTU":          func(ctx context.Context, n string) error { _, err := h.MTU(ctx, n); return err },
		"State":        func(ctx context.Context, n string) error { _, err := h.State(ctx, n); return err },
		"Driver":       func(ctx context.Context, n string) error { _, err := h.Driver(ctx, n); return err },
		"LinkSettings": func(ctx context.Context, n string) error { _, err := h.LinkSettings(ctx, n); return err },
		"Ring":         func(ctx context.Context, n string) error { _, err := h.Ring(ctx, n); return err },
		"Channels":     func(ctx context.Context, n string) error { _, err := h.Channels(ctx, n); return err },
		"Features":     func(ctx context.Context, n string) error { _, err := h.Features(ctx, n); return err },
		"Coalesce":     func(ctx context.Context, n string) error { _, err := h.Coalesce(ctx, n); return err },
		"Stats":        func(ctx context.Context, n string) error { _, err := h.Stats(ctx, n); return err },
		"Device":       func(ctx context.Context, n string) error { _, err := h.Device(ctx, n); return err },
		"Snapshot":     func(ctx context.Context, n string) error { _, err := h.Snapshot(ctx, n); return err },
	}
	for op, read := range reads {
		err := read(ctx, name)
		if !errors.Is(err, ErrNetdevNotFound) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s(%s) = %v, want ErrNetdevNotFound and fs.ErrNotExist", op, name, err)
		}
		if errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s(%s) = %v matches fs.ErrPermission", op, name, err)
		}
	}
}

// permissionHelperEnv runs TestRootPermission's unprivileged half.
const permissionHelperEnv = "ROCEKIT_NIC_PERMISSION_HELPER"

// TestRootPermission: a user without CAP_NET_ADMIN (nobody, in a copy of
// this test binary) cannot set an MTU, and the error says so in the io/fs
// vocabulary: fs.ErrPermission matches it (the errno EPERM is wrapped).
func TestRootPermission(t *testing.T) {
	if os.Getenv(permissionHelperEnv) == "1" {
		unprivilegedSetMTU(t)
		return
	}
	labtest.Root(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "nic-permission-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "nic.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestRootPermission$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), permissionHelperEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "permission error matched") {
		t.Fatalf("unprivileged half: %v\n%s", err, out)
	}
}

const nobody = 65534

// unprivilegedSetMTU asks for another MTU on lo as nobody, which the
// kernel refuses with EPERM before it changes anything.
func unprivilegedSetMTU(t *testing.T) {
	if os.Geteuid() != nobody {
		t.Fatalf("the helper runs as uid %d, not nobody: not asking for an MTU change", os.Geteuid())
	}
	h, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := testCtx(t)
	mtu, err := h.MTU(ctx, "lo")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.SetMTU(ctx, "lo", mtu-1)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, fs.ErrPermission) || !errors.Is(err, unix.EPERM) || errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SetMTU(lo) as nobody = %v, want an *Error matching fs.ErrPermission", err)
	}
	t.Logf("permission error matched: %v", err)
}

// A netdev that is not there is named beside those that are, in a fresh
// namespace: "lo" only (the runbook's "check the name with ip link").
func TestNetdevNotFoundListsNetdevs(t *testing.T) {
	h := openIn(t, newNetns(t, "nl"))
	_, err := h.SetMTU(testCtx(t), "eht0", 9000)
	var e *Error
	if !errors.As(err, &e) || len(e.Netdevs) != 1 || e.Netdevs[0] != "lo" || !strings.HasSuffix(err.Error(), "(netdevs here: lo)") {
		t.Errorf("err %v, netdevs %v", err, e)
	}
}
