package perftest_test

import (
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rocekittest"
)

// clockLine is the stderr line of the void pair seen in the lab (bookworm,
// perftest 4.5, three-guest matrix, 2026-12-01), whose client row was
// "16384 200 0.000000 0.000000 0.000000".
const clockLine = "Correlation coefficient r^2: 0.821758 < 0.9\n"

func TestClockVoid(t *testing.T) {
	// A real output with the clock warning but measured rows is not void.
	c, err := rocekittest.Lookup("bookworm/perftest/write-bw-a-gbits")
	if err != nil {
		t.Fatal(err)
	}
	cli, _ := c.Side("client")
	res, _ := perftest.ParseOutput(cli.Stdout, cli.Stderr)
	if !res.HasWarning(perftest.WarnClock) || res.ClockVoid() {
		t.Errorf("write-bw-a-gbits: clock warning %v, void %v; want the warning and not void", res.HasWarning(perftest.WarnClock), res.ClockVoid())
	}
	// The lab's void row in a real header (synthetic rows).
	tmpl, err := rocekittest.Lookup("bookworm/perftest/send-bw-gbits")
	if err != nil {
		t.Fatal(err)
	}
	v, err := rocekittest.SyntheticBW(tmpl, []perftest.BWRow{{Bytes: 16384, Iterations: 200}})
	if err != nil {
		t.Fatal(err)
	}
	vcli, _ := v.Side("client")
	for _, tc := range []struct {
		stderr string
		want   bool
	}{{clockLine, true}, {"", false}} {
		res, _ := perftest.ParseOutput(vcli.Stdout, []byte(tc.stderr))
		if res.ClockVoid() != tc.want {
			t.Errorf("zero row, stderr %q: void %v, want %v", tc.stderr, res.ClockVoid(), tc.want)
		}
	}
	var none *perftest.Result
	if none.ClockVoid() {
		t.Error("nil result void")
	}
}
