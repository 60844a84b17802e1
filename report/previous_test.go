package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The loop the runbooks close: the latest earlier round of the same test
// is the baseline whatever changed, and the change is named.
func TestAgainstPrevious(t *testing.T) {
	s := OpenStore(filepath.Join(t.TempDir(), "rounds.jsonl"))
	at := func(name string, start time.Time, bw []float64, params ...Param) Round {
		return Round{Name: name, Start: start, Params: params,
			Metrics: []Metric{{Name: "bw_avg", Labels: []Param{{"size", "65536"}}, Unit: UnitGbps, Better: HigherIsBetter, Values: bw}}}
	}
	old := at("ib_send_bw", t0, bw1500, Param{"netdev_mtu", "1500"}, Param{"mtu", "1024"}, Param{"argv", "ib_send_bw -n 1000"})
	older := at("ib_send_bw", t0.Add(-time.Hour), bw1500, Param{"netdev_mtu", "1500"})
	other := at("ib_send_lat", t0.Add(time.Minute), bw1500)
	for _, r := range []Round{old, older, other} {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	cur := at("ib_send_bw", t0.Add(2*time.Hour), bw9000, Param{"netdev_mtu", "9000"}, Param{"mtu", "4096"}, Param{"argv", "ib_send_bw -n 1000 --mtu"})
	prev, ok, err := s.Previous(cur)
	if err != nil || !ok || !prev.Start.Equal(t0) {
		t.Fatalf("previous %v %v %v", prev.Start, ok, err)
	}
	var b bytes.Buffer
	if err := WriteAgainstPrevious(&b, s, []Round{cur, at("ib_read_bw", t0, bw1500)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"## Against the previous run", "Several parameters changed at once (2): `netdev_mtu` 1500 → 9000, `mtu` 1024 → 4096 (and so the command line)",
		"First of their name (the baseline for the next run): ib_read_bw."} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	// One parameter: said as the change.
	one := at("ib_send_bw", t0.Add(3*time.Hour), bw9000, Param{"netdev_mtu", "9000"}, Param{"mtu", "1024"}, Param{"argv", "ib_send_bw -n 1000"})
	b.Reset()
	WriteAgainstPrevious(&b, s, []Round{one})
	if !strings.Contains(b.String(), "Changed: `netdev_mtu` 1500 → 9000.") {
		t.Errorf("one change:\n%s", b.String())
	}
	// A store that does not exist has no previous round.
	if _, ok, err := OpenStore(filepath.Join(t.TempDir(), "none.jsonl")).Previous(cur); ok || err != nil {
		t.Errorf("no store: %v %v", ok, err)
	}
}

func TestRoundEfficiency(t *testing.T) {
	r := Round{DurationSec: 40, ToolSec: 36}
	if e, ok := r.Efficiency(); !ok || e != 0.9 {
		t.Errorf("%v %v", e, ok)
	}
	if _, ok := (&Round{DurationSec: 40}).Efficiency(); ok {
		t.Error("no tool time, an efficiency")
	}
}
