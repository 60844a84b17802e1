package report

import (
	"github.com/rocekit/rocekit/perftest"
	"strings"
	"testing"
)

// writeBWRound is a round of real ib_write_bw outputs of one lab suite:
// the --run_infinitely intervals and the -n, --report_gbits and -D runs
// (65536 bytes each), as the lab captured them.
func writeBWRound(t *testing.T, suite string) Round {
	t.Helper()
	var runs []*perftest.Result
	for _, c := range []string{"write-bw-infinite", "write-bw", "write-bw-gbits", "write-bw-duration"} {
		runs = append(runs, perftestFixture(t, suite, c, "client"))
	}
	r, err := FromPerftest(suite, t0, runs...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWriteBenchstat: two rounds of real outputs side by side, a table
// per unit, aligned, with the median ± CI, "no CI" for a sample too
// small for one, and the change with its p-value and sample sizes (and
// the samples the U test needs where it cannot tell).
func TestWriteBenchstat(t *testing.T) {
	var b strings.Builder
	if err := WriteBenchstat(&b, CompareOptions{}, writeBWRound(t, "bookworm"), writeBWRound(t, "trixie")); err != nil {
		t.Fatal(err)
	}
	want := `                   │       bookworm        │                     trixie                      │
                   │        Gbit/s         │        Gbit/s                  vs base          │
bw_avg/size=65536    0.1123 ± 49%            0.06895 ± 109%        -38.62% (p=0.014 n=8+7)
bw_peak/size=65536   0.2452 (n = 2: no CI)   0.107 (n = 2: no CI)  ~ (p=0.333 n=2: need ≥ 4)

                    │    bookworm     │                  trixie                   │
                    │      Mpps       │       Mpps                vs base         │
msg_rate/size=65536   2.150e-04 ± 48%   1.320e-04 ± 108%  -38.60% (p=0.014 n=8+7)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// A comparison made elsewhere (a step's, the store's) is laid out
	// the same, from its own numbers.
	var c strings.Builder
	if err := WriteBenchstatComparison(&c, Compare(writeBWRound(t, "bookworm"), writeBWRound(t, "trixie"), CompareOptions{})); err != nil || c.String() != want {
		t.Errorf("WriteBenchstatComparison: %v\n%s", err, c.String())
	}
}

// TestWriteBenchstatOneRoundAndMissing: a round alone has its medians
// only; a metric one round lacks reads "—" there and says so.
func TestWriteBenchstatOneRoundAndMissing(t *testing.T) {
	lat, err := FromPerftest("send_lat", t0, perftestFixture(t, "trixie", "send-lat", "client"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteBenchstat(&b, CompareOptions{}, lat); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2+len(lat.Metrics) || !strings.Contains(lines[0], "send_lat") ||
		!strings.HasPrefix(lines[2], "t_min/size=2 ") || !strings.HasSuffix(lines[2], "(n = 1: no CI)") || strings.Contains(b.String(), "vs base") {
		t.Errorf("one round:\n%s", b.String())
	}
	bw := writeBWRound(t, "trixie")
	base := bw
	base.Name, base.Metrics = "no_peak", nil
	for _, m := range bw.Metrics {
		if m.Name != "bw_peak" {
			base.Metrics = append(base.Metrics, m)
		}
	}
	b.Reset()
	if err := WriteBenchstat(&b, CompareOptions{}, base, bw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "bw_peak/size=65536   —  ") || !strings.Contains(b.String(), "(missing in the baseline)") ||
		!strings.Contains(b.String(), "~ (p=1.000 n=7)") {
		t.Errorf("missing metric:\n%s", b.String())
	}
	b.Reset()
	if err := WriteBenchstat(&b, CompareOptions{}); err != nil || b.Len() != 0 {
		t.Errorf("no rounds: %v %q", err, b.String())
	}
}
