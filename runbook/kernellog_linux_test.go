package runbook

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/report"
)

// TestKernelLogRound: a driver line written to /dev/kmsg between two reads
// of this host's log is the round's only new line for that netdev, and
// becomes a finding with the rule's action.
func TestKernelLogRound(t *testing.T) {
	labtest.Root(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l := &Local{}
	before, err := l.KernelLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dev := fmt.Sprintf("rkl%d", os.Getpid()%10000)
	line := fmt.Sprintf("<4>NETDEV WATCHDOG: %s (virtio_net): transmit queue 0 timed out 5124 ms\n", dev)
	if err := os.WriteFile("/dev/kmsg", []byte(line), 0); err != nil {
		t.Skipf("cannot write /dev/kmsg: %v", err)
	}
	after, err := l.KernelLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines := kmsg.Filter{Netdevs: []string{dev}}.Apply(kmsg.Since(before, after))
	if len(lines) != 1 {
		t.Fatalf("%d new lines for %s, want 1: %+v", len(lines), dev, lines)
	}
	fs := report.KernelLogFindings("near", kmsg.Summarize(lines))
	if len(fs) != 1 || fs[0].Rule != "kernel_log_timeout" || !strings.Contains(fs[0].Summary, dev) || fs[0].Action == "" {
		t.Errorf("findings %+v", fs)
	}
}
