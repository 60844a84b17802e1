package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
)

func fleetOf(n int) []Host {
	var hs []Host
	for i := range n {
		hs = append(hs, Host{Name: fmt.Sprintf("h%d", i), Runner: &host.Fake{Name: fmt.Sprintf("h%d", i)},
			NICs: []NIC{{Netdev: "eth0", LineRateGbps: 10}}})
	}
	return hs
}

// countingMeasurer records how many pairs each host is in at once and
// returns bw(a, b); it fails pairs for which bw is negative and hangs
// (until ctx ends) those for which it is NaN-like (-2).
type countingMeasurer struct {
	mu       sync.Mutex
	now, max map[string]int
	calls    []string
	slots    map[int]bool
	bw       func(a, b string) float64
}

func (c *countingMeasurer) Measure(ctx context.Context, a, b Host, slot int) Cell {
	c.mu.Lock()
	if c.now == nil {
		c.now, c.max, c.slots = map[string]int{}, map[string]int{}, map[int]bool{}
	}
	c.calls = append(c.calls, a.Name+"-"+b.Name)
	c.slots[slot] = true
	for _, h := range []string{a.Name, b.Name} {
		c.now[h]++
		c.max[h] = max(c.max[h], c.now[h])
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.now[a.Name]--
		c.now[b.Name]--
		c.mu.Unlock()
	}()
	v := c.bw(a.Name, b.Name)
	if v == -2 {
		<-ctx.Done()
		return Cell{Err: context.Cause(ctx), Error: context.Cause(ctx).Error()}
	}
	time.Sleep(20 * time.Millisecond)
	if v < 0 {
		return Cell{Error: "connect failed"}
	}
	return Cell{OK: true, BWGbps: v, LineRateGbps: 10, ANIC: "eth0", BNIC: "eth0"}
}

func TestPlanRunPerHostLimitAndProgress(t *testing.T) {
	hosts := fleetOf(6)
	s, _ := AllPairs(6, 2)
	m := &countingMeasurer{bw: func(a, b string) float64 { return 9.5 }}
	var prog bytes.Buffer
	mat, err := Plan{Name: "rack1", Hosts: hosts, Schedule: s, Measurer: m, Progress: &prog}.Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(mat.Cells) != 15 || len(m.calls) != 15 || len(mat.Unmeasured) != 0 {
		t.Fatalf("%d cells, %d calls", len(mat.Cells), len(m.calls))
	}
	for h, n := range m.max {
		if n > 2 {
			t.Errorf("host %s in %d pairs at once (limit 2)", h, n)
		}
	}
	if !m.slots[0] || !m.slots[5] || m.slots[6] { // 3 rounds of 6 pairs
		t.Errorf("slots %v, want 0-5", m.slots)
	}
	lines := strings.Split(strings.TrimSpace(prog.String()), "\n")
	if len(lines) != 15+3 || lines[0] != "round 1/3: 6 pairs" || !strings.Contains(lines[len(lines)-1], "[15/15]") ||
		!strings.Contains(lines[len(lines)-1], "ETA 0s") || !strings.Contains(lines[1], "9.5 Gbit/s") || !strings.Contains(lines[1], "ETA ") {
		t.Errorf("progress:\n%s", prog.String())
	}
}

// TestPlanRunResumes: a run cancelled after its first round is resumed
// under the same name from the store: the pairs measured are read back,
// the failed one and the unmeasured ones run, nothing twice.
func TestPlanRunResumes(t *testing.T) {
	hosts := fleetOf(4)
	s, _ := AllPairs(4, 1) // 3 rounds of 2
	store := report.OpenStore(filepath.Join(t.TempDir(), "fleet.jsonl"))
	ctx, cancel := context.WithCancel(ctxFor(t))
	first := &countingMeasurer{bw: func(a, b string) float64 {
		if a == "h1" && b == "h2" || a == "h2" && b == "h1" {
			return -1
		}
		return 8
	}}
	// The run is interrupted once its first round has ended.
	plan := Plan{Name: "rack1", Hosts: hosts, Schedule: s, Store: store, Measurer: first,
		Progress: writerFunc(func(b []byte) {
			if strings.HasPrefix(string(b), "[2/6]") {
				cancel()
			}
		})}
	mat, err := plan.Run(ctx)
	if !errors.Is(err, context.Canceled) || len(mat.Cells) != 2 || len(mat.Unmeasured) != 4 || len(first.calls) != 2 {
		t.Fatalf("interrupted run: %v, %d cells, %d unmeasured", err, len(mat.Cells), len(mat.Unmeasured))
	}
	var md bytes.Buffer
	mat.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "4 pairs not measured") || !strings.Contains(md.String(), " ? |") {
		t.Errorf("markdown of an interrupted run:\n%s", md.String())
	}
	second := &countingMeasurer{bw: func(a, b string) float64 { return 9 }}
	plan.Measurer = second
	var prog bytes.Buffer
	plan.Progress = &prog
	mat, err = plan.Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(mat.Cells) != 6 || len(mat.Unmeasured) != 0 {
		t.Fatalf("resumed: %d cells, %d unmeasured", len(mat.Cells), len(mat.Unmeasured))
	}
	resumed := 0
	for _, c := range mat.Cells {
		if c.Resumed {
			resumed++
			if !c.OK || c.BWGbps != 8 || c.LineRateGbps != 10 || c.ANIC != "eth0" {
				t.Errorf("resumed cell %+v", c)
			}
		}
	}
	if resumed != 1 || len(second.calls) != 5 {
		t.Errorf("resumed %d cells and ran %d pairs (%v), want 1 and 5", resumed, len(second.calls), second.calls)
	}
	if !strings.HasPrefix(prog.String(), "resuming rack1: 1 pairs in the store, 5 to measure") {
		t.Errorf("progress: %s", prog.String())
	}
	// A third run has nothing left to do.
	third := &countingMeasurer{bw: func(a, b string) float64 { return 1 }}
	plan.Measurer, plan.Progress = third, nil
	if mat, err = plan.Run(ctxFor(t)); err != nil || len(third.calls) != 0 || len(mat.Cells) != 6 {
		t.Errorf("third run: %v, %d calls", err, len(third.calls))
	}
	rounds, _, _ := store.Load()
	if len(rounds) != 7 { // 2 of the first run (one failed), 5 of the second
		t.Errorf("store has %d rounds, want 7", len(rounds))
	}
}

func TestPlanRunPairDeadline(t *testing.T) {
	hosts := fleetOf(3)
	s, _ := AllPairs(3, 1)
	m := &countingMeasurer{bw: func(a, b string) float64 {
		if a == "h0" && b == "h2" {
			return -2 // hangs
		}
		return 5
	}}
	start := time.Now()
	mat, err := Plan{Name: "x", Hosts: hosts, Schedule: s, Measurer: m, PairDeadline: 200 * time.Millisecond}.Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := mat.Cell(2, 0)
	if !ok || c.OK || !errors.Is(c.Err, ErrPairDeadline) || !strings.Contains(c.Error, "deadline") {
		t.Errorf("hung pair: %+v", c)
	}
	if time.Since(start) > 5*time.Second || len(mat.Cells) != 3 {
		t.Errorf("took %v, %d cells", time.Since(start), len(mat.Cells))
	}
}

func TestPlanErrors(t *testing.T) {
	s, _ := AllPairs(3, 1)
	m := MeasurerFunc(func(context.Context, Host, Host, int) Cell { return Cell{} })
	hosts := fleetOf(3)
	dup := fleetOf(3)
	dup[2].Name = "h0"
	noNIC := fleetOf(3)
	noNIC[1].NICs = nil
	for name, c := range map[string]struct {
		p    Plan
		want error
	}{
		"no name":     {Plan{Hosts: hosts, Schedule: s, Measurer: m}, ErrInvalidPlan},
		"no measurer": {Plan{Name: "x", Hosts: hosts, Schedule: s}, ErrInvalidPlan},
		"wrong size":  {Plan{Name: "x", Hosts: fleetOf(4), Schedule: s, Measurer: m}, ErrInvalidPlan},
		"duplicate":   {Plan{Name: "x", Hosts: dup, Schedule: s, Measurer: m}, ErrInvalidHost},
		"no NIC":      {Plan{Name: "x", Hosts: noNIC, Schedule: s, Measurer: m}, ErrInvalidHost},
	} {
		if _, err := c.p.Run(ctxFor(t)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

func TestMatrixOutputs(t *testing.T) {
	m := synthetic(3, func(a, b int) float64 {
		if a == 1 && b == 2 {
			return -1
		}
		return 42.25
	})
	var md, csv, js bytes.Buffer
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	want := "| | h0 | h1 | h2 |\n|---|---:|---:|---:|\n| **h0** | — | 42.2 | 42.2 |\n| **h1** | 42.2 | — | fail |\n| **h2** | 42.2 | fail | — |\n\n- h1–h2 failed: connect failed\n"
	if md.String() != want {
		t.Errorf("markdown:\n%s\nwant\n%s", md.String(), want)
	}
	m.WriteCSV(&csv)
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 4 || lines[0] != "a,b,a_nic,b_nic,ok,bw_gbps,line_rate_gbps,elapsed_s,resumed,error" ||
		!strings.Contains(csv.String(), "h1,h2,,,false,0,100,0.0,false,connect failed") {
		t.Errorf("csv:\n%s", csv.String())
	}
	m.WriteJSON(&js)
	var back Matrix
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Cells) != 3 || back.Cells[1].BWGbps != 42.25 ||
		back.Cells[0].Error != "connect failed" || back.Cells[0].Pair != (Pair{1, 2}) {
		t.Errorf("json round trip: %v %+v", err, back)
	}
}

func TestCellRoundTrip(t *testing.T) {
	hosts := []string{"a", "b", "c"}
	ok := Cell{Pair: Pair{0, 2}, A: "a", B: "c", ANIC: "eth1", BNIC: "eth0", OK: true, BWGbps: 23.5, LineRateGbps: 25,
		Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Elapsed: 3 * time.Second, Warnings: warnjson.Errors{errors.New("w")}}
	r := CellRound("rack", ok)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	back, good := CellFromRound(r, hosts)
	ok.Resumed = true
	if !good || fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", ok) {
		t.Errorf("round trip:\n%+v\n%+v", back, ok)
	}
	bad := CellRound("rack", Cell{Pair: Pair{0, 1}, A: "a", B: "b", Error: "timeout"})
	if c, good := CellFromRound(bad, hosts); !good || c.OK || c.Error != "timeout" {
		t.Errorf("failed cell: %+v", c)
	}
	if _, good := CellFromRound(r, []string{"a", "b"}); good {
		t.Errorf("a host not in the fleet was read back")
	}
	if _, good := CellFromRound(report.Round{Name: "rack"}, hosts); good {
		t.Errorf("a round without the parameters was read back")
	}
}

// TestPerftestMeasurerMatrix runs a three-host matrix with perftest on
// fake hosts end to end: every pair one NIC pair, pair bandwidths from
// the fakes' ports, the slow one named.
func TestPerftestMeasurerMatrix(t *testing.T) {
	var hosts []Host
	for i := range 3 {
		f := newFakeHost(t, fmt.Sprint("h", i))
		if i == 2 { // h2 serves slowly: only h0–h2 and h1–h2 have it as server
			f.bw = func(int) float64 { return 0.5 }
		}
		hosts = append(hosts, Host{Name: fmt.Sprint("h", i), Runner: f,
			NICs: []NIC{{Netdev: "eth0", Device: "rxe0", Addr: netip.AddrFrom4([4]byte{198, 18, 5, byte(i + 1)}),
				Prefix: netip.MustParsePrefix("198.18.5.0/24"), LineRateGbps: 10}}})
	}
	// The fakes' client prints bw(port): the clients are h1 (pair 0-1)
	// and h2 (pairs 0-2, 1-2). h2's client is slow, so h0–h2 and h1–h2
	// are slow and h2 is blamed.
	s, _ := AllPairs(3, 1)
	mat, err := Plan{Name: "p", Hosts: hosts, Schedule: s,
		Measurer: PerftestMeasurer{Options: perftest.Options{Test: perftest.SendBW, Duration: 2 * time.Second, ReportGbits: true}}}.Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range mat.Cells {
		if !c.OK || c.LineRateGbps != 10 || c.ANIC != "eth0" {
			t.Errorf("cell %+v", c)
		}
	}
	out := Outliers(mat, 0)
	if len(out) != 1 || out[0].Blame != BlameHost || out[0].Host != "h2" {
		t.Errorf("outliers %v", out)
	}
	if err := (LineRateGate{}).Check(mat); err == nil || !strings.Contains(err.Error(), "3 of 3 pairs") {
		t.Errorf("gate: %v", err)
	}
}

// writerFunc is an io.Writer that hands each write to a function.
type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }
