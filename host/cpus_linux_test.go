package host

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLocalCPUs: a process started with Cmd.CPUs runs on those CPUs from
// the start (it reads its own mask), and so does its child; the caller's
// own mask is left as it was.
func TestLocalCPUs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mine := allowed(t, Local{}, nil)
	p, err := Run(ctx, Local{}, Cmd{Argv: []string{"sh", "-c", "grep Cpus_allowed_list /proc/self/status; sh -c 'grep Cpus_allowed_list /proc/self/status'"}, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Stdout().String(); got != "Cpus_allowed_list:\t0\nCpus_allowed_list:\t0\n" {
		t.Errorf("pinned process and child say %q", got)
	}
	if after := allowed(t, Local{}, nil); after != mine {
		t.Errorf("an unpinned process after it runs on %q, before on %q", after, mine)
	}
	var l Local
	if _, err := l.Start(ctx, Cmd{Argv: []string{"true"}, CPUs: []int{-1}}); !errors.Is(err, ErrInvalidCmd) {
		t.Errorf("CPU -1: %v", err)
	}
	if _, err := l.Start(ctx, Cmd{Argv: []string{"true"}, CPUs: []int{1000}}); err == nil || !strings.Contains(err.Error(), "CPU affinity 1000") {
		t.Errorf("an absent CPU: %v", err)
	}
}

func allowed(t *testing.T, r Runner, cpus []int) string {
	t.Helper()
	p, err := Run(context.Background(), r, Cmd{Argv: []string{"grep", "Cpus_allowed_list", "/proc/self/status"}, CPUs: cpus})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(p.Stdout().String())
}

// TestSSHCPUs: over SSH, Cmd.CPUs runs the program under taskset -c.
func TestSSHCPUs(t *testing.T) {
	d := startSSHD(t)
	s := d.dial(t)
	if got := allowed(t, s, []int{1}); got != "Cpus_allowed_list:\t1" {
		t.Errorf("pinned over SSH: %q", got)
	}
}
