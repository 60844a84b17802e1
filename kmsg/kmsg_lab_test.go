//go:build lab

package kmsg

// Tier 3: in a lab guest (Debian 6.1 and 6.12 under QEMU). Run with:
// go run ./internal/lab/cmd/lab test -run TestLabKmsg -v

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
)

func labRun(t *testing.T, ctx context.Context, argv ...string) {
	t.Helper()
	if p, err := host.Run(ctx, host.Local{}, host.Cmd{Argv: argv}); err != nil {
		out := ""
		if p != nil {
			out = p.Stderr().String()
		}
		t.Fatalf("%v: %v %s", argv, err, out)
	}
}

// TestLabKmsgRound: a round that adds an rxe link and writes a line
// through /dev/kmsg; Read before and after, Since, Filter and Classify
// keep exactly the round's lines, by /dev/kmsg and by dmesg -r.
func TestLabKmsgRound(t *testing.T) {
	labtest.Guest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	labRun(t, ctx, "modprobe", "rdma_rxe")
	labRun(t, ctx, "ip", "link", "set", "eth1", "up")
	beforeK, err := ReadWith(ctx, host.Local{}, MethodKmsg)
	if err != nil {
		t.Fatal(err)
	}
	beforeD, err := ReadWith(ctx, host.Local{}, MethodDmesg)
	if err != nil {
		t.Fatal(err)
	}

	labRun(t, ctx, "rdma", "link", "add", "rxekmsg", "type", "rxe", "netdev", "eth1")
	defer labRun(t, context.Background(), "rdma", "link", "delete", "rxekmsg")
	marker := fmt.Sprintf("rocekit-lab: injected cmd_exec timeout %d", time.Now().UnixNano())
	if err := os.WriteFile("/dev/kmsg", []byte("<3>"+marker+"\n"), 0); err != nil {
		t.Fatal(err)
	}

	for _, m := range []Method{MethodKmsg, MethodDmesg} {
		after, err := ReadWith(ctx, host.Local{}, m)
		if err != nil {
			t.Fatal(err)
		}
		before := beforeK
		if m == MethodDmesg {
			before = beforeD
		}
		round := Since(before.Records, after.Records)
		t.Logf("method %d (%s): %d records before, %d after, %d in the round:", m, labtest.Suite(), len(before.Records), len(after.Records), len(round))
		for _, r := range round {
			t.Logf("  %v", r)
		}
		var inj []Record
		for _, r := range round {
			if r.Text == marker {
				inj = append(inj, r)
			}
		}
		if len(inj) != 1 || inj[0].Priority != 3 {
			t.Fatalf("method %d: injected line in the round: %+v", m, inj)
		}
		if rule, ok := Classify(inj[0]); !ok || rule.Kind != KindTimeout {
			t.Errorf("method %d: injected line classified %v %v", m, rule.Kind, ok)
		}
		rxe := Filter{Drivers: []string{"rdma_rxe"}}.Apply(round)
		var active bool
		for _, r := range rxe {
			active = active || r.Text == "infiniband rxekmsg: set active"
		}
		if !active {
			t.Errorf("method %d: no 'infiniband rxekmsg: set active' among the round's rxe lines %q", m, texts(rxe))
		}
		for _, r := range round {
			if r.HasTime && len(before.Records) > 0 && r.Micros < before.Records[len(before.Records)-1].Micros {
				t.Errorf("method %d: round holds an older record %v", m, r)
			}
		}
	}
}
