package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
)

// t0 is a fixed start time for test rounds.
var t0 = time.Date(2026, 11, 29, 17, 15, 53, 0, time.UTC)

// approx compares floats to 1e-9 relative.
var approx = cmpopts.EquateApprox(1e-9, 0)

func fixture(t testing.TB, suite, tool, c, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "rocekittest", "captures", suite, tool, c, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// perftestFixture parses a captured side's stdout and stderr with the
// perftest package.
func perftestFixture(t testing.TB, suite, c, side string) *perftest.Result {
	t.Helper()
	res, _ := perftest.ParseOutput(fixture(t, suite, "perftest", c, side+".stdout"), fixture(t, suite, "perftest", c, side+".stderr"))
	if res == nil {
		t.Fatalf("%s/%s: nil result", suite, c)
	}
	return res
}

func netperfFixture(t testing.TB, suite, c string) *netperf.Result {
	t.Helper()
	res, _ := netperf.Parse(bytes.NewReader(fixture(t, suite, "netperf", c, "client.stdout")))
	if res == nil {
		t.Fatalf("%s/%s: nil result", suite, c)
	}
	return res
}

func diff(t *testing.T, want, got any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, append(opts, approx, cmpopts.EquateEmpty())...); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// mib converts MiB/s to Gbit/s as perftest defines them.
func mib(v float64) float64 { return v * 1048576 * 8 / 1e9 }

func nan() float64 { var z float64; return z / z }

func cmpDiff(want, got any) string {
	return cmp.Diff(want, got, approx, cmpopts.EquateEmpty())
}

func itoa(n int) string { return fmt.Sprint(n) }
