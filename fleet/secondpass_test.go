package fleet

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// bwModel measures a pair as its hosts' names say: slow hosts give 30
// Gbit/s with anyone, a slow link 20, a flaky pair fails the first time.
type bwModel struct {
	slowHost, flaky string
	slowLink        [2]string
	mu              sync.Mutex
	seen            map[string]int
}

func (b *bwModel) Measure(_ context.Context, x, y Host, _ int) Cell {
	name := x.Name + "–" + y.Name
	if x.Name > y.Name {
		name = y.Name + "–" + x.Name
	}
	b.mu.Lock()
	b.seen[name]++
	n := b.seen[name]
	b.mu.Unlock()
	c := Cell{OK: true, BWGbps: 95, LineRateGbps: 100}
	switch {
	case x.Name == b.slowHost || y.Name == b.slowHost:
		c.BWGbps = 30
	case (x.Name == b.slowLink[0] && y.Name == b.slowLink[1]) || (x.Name == b.slowLink[1] && y.Name == b.slowLink[0]):
		c.BWGbps = 20
	case name == b.flaky && n == 1:
		c = Cell{Error: "Couldn't connect"}
	}
	return c
}

// A ring of 8 hosts: each host meets two partners only, so the first
// pass cannot tell a slow host from slow links.
func ringPlan(t *testing.T, m Measurer) Plan {
	t.Helper()
	s, err := Ring(8, 1)
	if err != nil {
		t.Fatal(err)
	}
	return Plan{Name: "ring", Hosts: fleetOf(8), Schedule: s, Measurer: m}
}

func secondPass(t *testing.T, model *bwModel) *SecondPass {
	t.Helper()
	model.seen = map[string]int{}
	return runSecondPass(t, ringPlan(t, model), SecondPassOptions{})
}

// runSecondPass runs p, then its second pass with o, and logs the first
// matrix and the suspects.
func runSecondPass(t *testing.T, p Plan, o SecondPassOptions) *SecondPass {
	t.Helper()
	first, err := p.Run(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	logMatrix(t, first)
	sp, err := p.SecondPass(ctxFor(t), first, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sp.Suspects {
		t.Logf("%s: %s (%s)", s.Name, s.Culprit, s.Why)
	}
	return sp
}

func logMatrix(t *testing.T, m *Matrix) {
	t.Helper()
	var b strings.Builder
	m.WriteMarkdown(&b)
	t.Logf("\n%s", b.String())
}

func TestSecondPassSlowHost(t *testing.T) {
	sp := secondPass(t, &bwModel{slowHost: "h3"})
	if len(sp.Suspects) != 2 {
		t.Fatalf("suspects %+v", sp.Suspects)
	}
	for _, s := range sp.Suspects {
		if s.Culprit != CulpritHost || s.Host != "h3" || !strings.Contains(s.Why, "host h3 stays bad with good partners") {
			t.Errorf("%s: %s %q (%s)", s.Name, s.Culprit, s.Host, s.Why)
		}
	}
	if sp.ReferenceGbps != 95 || len(sp.Good) != 7 {
		t.Errorf("reference %v, good %v", sp.ReferenceGbps, sp.Good)
	}
}

func TestSecondPassSlowLink(t *testing.T) {
	sp := secondPass(t, &bwModel{slowLink: [2]string{"h5", "h6"}})
	if len(sp.Suspects) != 1 {
		t.Fatalf("suspects %+v", sp.Suspects)
	}
	s := sp.Suspects[0]
	if s.Name != "h5–h6" || s.Culprit != CulpritLink || s.Host != "" || !strings.Contains(s.Why, "h5–h6 is still bad (20 Gbit/s") {
		t.Errorf("%+v", s)
	}
	// h5 and h6 each met two good partners, and the pair ran again.
	if len(s.Retests) != 5 {
		t.Errorf("retests %d: %+v", len(s.Retests), s.Retests)
	}
}

func TestSecondPassTransient(t *testing.T) {
	sp := secondPass(t, &bwModel{flaky: "h1–h2"})
	if len(sp.Suspects) != 1 || sp.Suspects[0].Culprit != CulpritTransient {
		t.Fatalf("%+v", sp.Suspects)
	}
}

func TestSecondPassNoGoodHosts(t *testing.T) {
	model := &bwModel{seen: map[string]int{}}
	s, _ := Ring(3, 1)
	p := Plan{Name: "three", Hosts: fleetOf(3), Schedule: s, Measurer: model}
	first := &Matrix{Name: "three", Hosts: []string{"h0", "h1", "h2"}}
	for _, pr := range s.Pairs() {
		first.Cells = append(first.Cells, Cell{Pair: pr, A: first.Hosts[pr.A], B: first.Hosts[pr.B], Error: "failed"})
	}
	sp, err := p.SecondPass(context.Background(), first, SecondPassOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Suspects) != 3 || sp.Suspects[0].Culprit != CulpritUndecided || len(model.seen) != 0 {
		t.Errorf("%+v, measured %v", sp.Suspects, model.seen)
	}
}

// Three hosts, one slow on both its links (the lab's case): the other
// two are good partners, and the slow one is named, not its partners.
func TestSecondPassThreeHosts(t *testing.T) {
	for _, c := range []struct {
		model   *bwModel
		culprit Culprit
		host    string
	}{{&bwModel{slowHost: "h2"}, CulpritHost, "h2"}, {&bwModel{slowLink: [2]string{"h0", "h2"}}, CulpritLink, ""}} {
		c.model.seen = map[string]int{}
		s, _ := AllPairs(3, 1)
		sp := runSecondPass(t, Plan{Name: "three", Hosts: fleetOf(3), Schedule: s, Measurer: c.model}, SecondPassOptions{})
		if len(sp.Suspects) == 0 {
			t.Fatalf("%+v: no suspects", c.model)
		}
		for _, su := range sp.Suspects {
			t.Logf("%s: %s (%s)", su.Name, su.Culprit, su.Why)
			if su.Culprit != c.culprit || su.Host != c.host {
				t.Errorf("%s: %s %q, want %s %q", su.Name, su.Culprit, su.Host, c.culprit, c.host)
			}
		}
	}
}

func TestRetestPairs(t *testing.T) {
	got := retestPairs([]Pair{{2, 3}}, []int{0, 5, 6}, 2)
	want := []Pair{{0, 2}, {2, 5}, {3, 6}, {0, 3}, {2, 3}}
	// The suspect's own hosts are no partners of each other.
	if got := retestPairs([]Pair{{0, 1}}, []int{0, 1}, 2); len(got) != 0 {
		t.Errorf("partners of themselves: %v", got)
	}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%v, want %v", got, want)
			break
		}
	}
}
