package report

import (
	"os"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/kmsg"
)

// TestKernelLogFindings on a real mlx5 log with firmware command
// timeouts (rr-debugger/rr#3556): critical, with the firmware action.
func TestKernelLogFindings(t *testing.T) {
	f, err := os.Open("../testdata/realworld/kmsg/rr-3556-mlx5-manage-pages-timeout/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := kmsg.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	fs := KernelLogFindings("far", kmsg.Summarize(kmsg.Filter{Drivers: []string{"mlx5"}}.Apply(log.Records)))
	if len(fs) == 0 {
		t.Fatal("no finding")
	}
	if fs[0].Rule != "kernel_log_timeout" || fs[0].Severity != SeverityCritical || !strings.HasPrefix(fs[0].Summary, "far kernel log: ") || !strings.Contains(fs[0].Action, "firmware") {
		t.Errorf("finding %+v", fs[0])
	}
}
