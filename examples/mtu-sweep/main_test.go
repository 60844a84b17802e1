package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/examples/internal/clitest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// TestParseMTUs: -mtus is a list flag within the netdev MTU range.
func TestParseMTUs(t *testing.T) {
	clitest.CheckList(t, "parseMTUs", parseMTUs, append(clitest.ListBounds(68, 65535),
		clitest.ListCase{In: "1500,4200,9000", Want: []int{1500, 4200, 9000}},
		clitest.ListCase{In: " 9000, 1500 ", Want: []int{1500, 9000}},
		clitest.ListCase{In: "1500", Want: []int{1500}},
	))
}

func TestPointExpected(t *testing.T) {
	for _, tc := range []struct {
		p        point
		expected int
		took     bool
	}{
		{point{MTU: 1500, NearMTU: 1500, FarMTU: 1500, Seen: 1024}, 1024, true},
		{point{MTU: 4200, NearMTU: 4200, FarMTU: 4200, Seen: 4096}, 4096, true},
		{point{MTU: 9000, NearMTU: 9000, FarMTU: 9000, Seen: 1024}, 4096, false},
		// The far end stayed at 1500: the smaller end wins.
		{point{MTU: 9000, NearMTU: 9000, FarMTU: 1500, Seen: 1024}, 1024, true},
		{point{MTU: 9000, NearMTU: 9000, FarMTU: 9000}, 4096, false},
	} {
		if got := tc.p.Expected(); got != tc.expected {
			t.Errorf("%+v: Expected() = %d, want %d", tc.p, got, tc.expected)
		}
		if got := tc.p.TookEffect(); got != tc.took {
			t.Errorf("%+v: TookEffect() = %v, want %v", tc.p, got, tc.took)
		}
	}
}

// sweepRound is a round as FromPerftest and run make it.
func sweepRound(netdevMTU, pathMTU int, bw ...float64) report.Round {
	r := report.Round{Name: "ib_send_bw_mtu" + strconv.Itoa(netdevMTU)}
	r.SetParam("test", "Send BW Test")
	if pathMTU > 0 {
		r.SetParam("mtu", strconv.Itoa(pathMTU))
	}
	r.SetParam("netdev_mtu", strconv.Itoa(netdevMTU))
	if len(bw) > 0 {
		r.Metrics = []report.Metric{{Name: "bw_avg", Labels: []report.Param{{Key: "size", Value: "65536"}},
			Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: bw}}
	}
	return r
}

func observed(rounds []report.Round, metric string) []point {
	var ps []point
	for _, r := range rounds {
		v, _ := r.Param("netdev_mtu")
		n, _ := strconv.Atoi(v)
		p := point{MTU: n, NearMTU: n, FarMTU: n}
		p.observe(r, metric)
		ps = append(ps, p)
	}
	return ps
}

// sweepFindings are the sweep's own rules (check) over rounds, as each
// step stores them, the most severe first.
func sweepFindings(rounds []report.Round, points []point, metric string) []report.Finding {
	var fs []report.Finding
	for i := range rounds {
		var low *report.Round
		if i > 0 {
			low = &rounds[0]
		}
		fs = append(fs, check(&points[i], low, metric)(&rounds[i])...)
	}
	report.SortFindings(fs)
	return fs
}

func TestSweepFindingsAndSummary(t *testing.T) {
	const metric = "bw_avg/size=65536"
	rounds := []report.Round{
		sweepRound(1500, 1024, 1.0, 1.2, 1.1),
		sweepRound(4200, 4096, 3.0, 3.1, 2.9),
		// 9000 ran at 1024: the MTU never reached the RDMA path, and no
		// bandwidth was measured.
		sweepRound(9000, 1024),
	}
	points := observed(rounds, metric)
	fs := sweepFindings(rounds, points, metric)
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Severity)+" "+f.Rule)
	}
	want := []string{
		"critical " + RuleMTUTookEffect,           // 9000 ran at 1024
		"critical " + report.RulePathMTUUnchanged, // 1500 → 9000 kept 1024
		"info " + RuleMTUTookEffect,               // 1500
		"info " + RuleMTUTookEffect,               // 4200
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}

	s := buildSummary(runbook.Loopback, metric, points, fs)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back summaryJSON
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Mode != "loopback" || len(back.Rounds) != 3 || len(back.Findings) != len(fs) {
		t.Fatalf("summary: %s", b)
	}
	r := back.Rounds[1]
	if r.Name != "ib_send_bw_mtu4200" || r.NetdevMTU != 4200 || r.PathMTUExpected != 4096 || r.PathMTUSeen != 4096 ||
		!r.TookEffect || r.Metric != metric || r.Median == nil || *r.Median != 3.0 {
		t.Errorf("round 4200 in summary: %+v", r)
	}
	if r := back.Rounds[2]; r.TookEffect || r.Median != nil || r.PathMTUSeen != 1024 || r.PathMTUExpected != 4096 {
		t.Errorf("round 9000 in summary: %+v (want not taken, median null)", r)
	}
	if !strings.Contains(string(b), `"median":null`) {
		t.Errorf("no null median in %s", b)
	}
	if f := back.Findings[0]; f.Severity != "critical" || !strings.Contains(f.Summary, "MTU 9000 did not take effect") {
		t.Errorf("first finding %v", f)
	}
}

// TestSummaryEmpty encodes empty lists, not null.
func TestSummaryEmpty(t *testing.T) {
	b, _ := json.Marshal(buildSummary(runbook.TwoHosts, "m", nil, nil))
	if want := `{"mode":"two-host","rounds":[],"findings":[]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestFailedRuns(t *testing.T) {
	const metric = "bw_avg/size=65536"
	rounds := []report.Round{sweepRound(1500, 1024, 1.0, 1.1)}
	points := observed(rounds, metric)
	points[0].Runs, points[0].Failures = 3, []string{"run 2: perftest: completion error"}
	b, _ := json.Marshal(buildSummary(runbook.Loopback, metric, points, nil))
	if !strings.Contains(string(b), `"failed_runs":1`) {
		t.Errorf("summary: %s", b)
	}
}

// summaryJSON is what the tests read of summary.json.
type summaryJSON struct {
	Mode   string `json:"mode"`
	Rounds []struct {
		Name            string   `json:"name"`
		NetdevMTU       int      `json:"netdev_mtu"`
		PathMTUExpected int      `json:"path_mtu_expected"`
		PathMTUSeen     int      `json:"path_mtu_seen"`
		TookEffect      bool     `json:"took_effect"`
		Metric          string   `json:"metric"`
		Median          *float64 `json:"median"`
	} `json:"rounds"`
	Findings []struct {
		Severity, Rule, Summary string
	} `json:"findings"`
}
