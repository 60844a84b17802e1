package workflow

import (
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestHotFindings judges both ends' busiest core, naming the end, and
// this host once in loopback, where both ends are one host.
func TestHotFindings(t *testing.T) {
	hot := &irq.HotCore{CPU: 2, SoftPct: 95}
	cold := &irq.HotCore{CPU: -1}
	fs := hotFindings("1 QPs", &runbook.Sides{Mode: runbook.TwoHosts}, cold, hot)
	if len(fs) != 1 || fs[0].Rule != report.RuleHotSoftirq || !strings.HasPrefix(fs[0].Summary, "1 QPs, server: ") {
		t.Errorf("two hosts: %+v", fs)
	}
	fs = hotFindings("1 QPs", &runbook.Sides{Mode: runbook.Loopback}, hot, hot)
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Summary, "1 QPs, this host: ") {
		t.Errorf("loopback: %+v", fs)
	}
}
