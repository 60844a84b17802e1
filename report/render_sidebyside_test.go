package report

import (
	"reflect"
	"testing"
)

// TestSideBySide: rows are the union of the rounds' metrics in first-seen
// order, those keep drops left out, and a round without a metric has a
// zero cell.
func TestSideBySide(t *testing.T) {
	bw := Metric{Name: "bw", Unit: UnitGbps, Values: []float64{1}}
	cpu := Metric{Name: "bw", Labels: []Param{{Key: "cpu", Value: "0"}}, Unit: UnitPercent, Values: []float64{2}}
	lat := Metric{Name: "lat", Unit: UnitMicros, Values: []float64{3}}
	rounds := []Round{{Name: "A", Metrics: []Metric{bw, cpu}}, {Name: "B", Metrics: []Metric{lat, bw}}}
	got := SideBySide(rounds, nil)
	want := []SideBySideRow{
		{Key: "bw", Unit: UnitGbps, Cells: []Metric{bw, bw}},
		{Key: "bw/cpu=0", Unit: UnitPercent, Cells: []Metric{cpu, {}}},
		{Key: "lat", Unit: UnitMicros, Cells: []Metric{{}, lat}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("all:\n got %+v\nwant %+v", got, want)
	}
	noCPU := func(m Metric) bool { _, ok := m.Label("cpu"); return !ok }
	if got := SideBySide(rounds, noCPU); !reflect.DeepEqual(got, []SideBySideRow{want[0], want[2]}) {
		t.Errorf("without cpu: %+v", got)
	}
}
