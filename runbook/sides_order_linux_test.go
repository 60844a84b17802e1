package runbook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/tune"
)

// Both ends on one kernel (-peer to this very host, containers sharing the
// host's network): net.core.rmem_max is the kernel's, so the far end's
// journal records the value the near end had set (here the far end sets
// another: a value already set is not journaled at all). Restoring in
// reverse global order (far's later change first) leaves it as found;
// near first left the near end's value. The preflight says both ends
// share a kernel.
func TestSidesRestoreOneKernel(t *testing.T) {
	const key = rmemMaxKey
	orig, n := keepRmemMax(t)
	raised, raisedFar := strconv.Itoa(n+4096), strconv.Itoa(n+8192)
	d := labtest.StartSSHD(t)
	agent := buildAgent(t)

	for _, far := range []string{"local", "peer"} {
		t.Run(far, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dir := t.TempDir()
			s := &Sides{Mode: TwoHosts, Near: &Local{Journal: filepath.Join(dir, "near.jsonl")},
				Far: &Local{Journal: filepath.Join(dir, "far.jsonl")}, NearNetdev: "lo", FarNetdev: "lo"}
			if far == "peer" {
				p, err := DialPeer(ctx, PeerConfig{Target: "root@" + d.Addr, Identity: d.KeyFile, KnownHosts: d.KnownHosts,
					Agent: agent, JournalDir: filepath.Join(dir, "peer")})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close() })
				s.Far = p
			}
			one, err := s.OneKernel(ctx)
			if err != nil || !one {
				t.Errorf("OneKernel = %v, %v; want true", one, err)
			}
			_, findings, err := s.Preflight(ctx, nil, report.PreflightAsk{})
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(findings, RuleOneKernel) {
				t.Errorf("preflight findings %v: no %s", findings, RuleOneKernel)
			}
			// Round S: near first, then far, as the examples do.
			if err := s.Near.SetSysctl(ctx, key, raised); err != nil {
				t.Fatal(err)
			}
			if err := s.Far.SetSysctl(ctx, key, raisedFar); err != nil {
				t.Fatal(err)
			}
			if err := s.Restore(); err != nil {
				t.Fatal(err)
			}
			if got, _ := tune.ReadSysctl("", key); got != orig {
				t.Errorf("%s after Restore: %s, want %s (as found)", key, got, orig)
			}
		})
	}
	// Two ends on one kernel are not said of a loopback run's one end.
	lo := &Sides{Mode: Loopback, Near: &Local{}}
	if one, err := lo.OneKernel(context.Background()); err != nil || !one {
		t.Errorf("loopback OneKernel = %v, %v", one, err)
	}
}

// rmemMaxKey is the sysctl these tests change on both ends.
const rmemMaxKey = "net.core.rmem_max"

// keepRmemMax reads net.core.rmem_max and writes it back when the test
// ends; n is its value.
func keepRmemMax(t *testing.T) (orig string, n int) {
	t.Helper()
	orig, err := tune.ReadSysctl("", rmemMaxKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile("/proc/sys/net/core/rmem_max", []byte(orig), 0) })
	n, _ = strconv.Atoi(orig)
	return orig, n
}

func hasRule(fs []report.Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// The same after a crash, where each end's journal is recovered alone,
// this host's first (the examples at their next start): the far end did
// not journal the value that was already set, so nothing writes it back.
func TestOneKernelCrashRecover(t *testing.T) {
	const key = rmemMaxKey
	orig, n := keepRmemMax(t)
	raised := strconv.Itoa(n + 8192)
	ctx := context.Background()
	dir := t.TempDir()
	near, far := &Local{Journal: filepath.Join(dir, "near.jsonl")}, &Local{Journal: filepath.Join(dir, "far.jsonl")}
	if err := near.SetSysctl(ctx, key, raised); err != nil {
		t.Fatal(err)
	}
	if err := far.SetSysctl(ctx, key, raised); err != nil {
		t.Fatal(err)
	}
	near.Close() // the crash: nothing restored
	far.Close()
	for _, j := range []string{near.Journal, far.Journal} {
		if _, err := tune.Recover(ctx, j); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if got, _ := tune.ReadSysctl("", key); got != orig {
		t.Errorf("%s after recovering both journals: %s, want %s", key, got, orig)
	}
}
