package fleet

import (
	"errors"
	"testing"
)

// checkEveryPairOnce asserts that s holds each pair of want exactly once
// and no other, and that no round has a host more than perHost times.
func checkEveryPairOnce(t *testing.T, s Schedule, want []Pair, perHost int) {
	t.Helper()
	if err := s.Check(perHost); err != nil {
		t.Fatalf("Check(%d): %v\n%v", perHost, err, s.Rounds)
	}
	got := map[Pair]int{}
	for _, r := range s.Rounds {
		load := map[int]int{}
		for _, p := range r {
			if p.A >= p.B {
				t.Errorf("pair %v not normalized", p)
			}
			got[p]++
			load[p.A]++
			load[p.B]++
		}
		for h, n := range load {
			if n > perHost {
				t.Errorf("host %d in %d pairs of one round (limit %d)", h, n, perHost)
			}
		}
	}
	for _, p := range want {
		if got[p] != 1 {
			t.Errorf("pair %v scheduled %d times", p, got[p])
		}
		delete(got, p)
	}
	for p := range got {
		t.Errorf("pair %v scheduled but not wanted", p)
	}
}

func allPairsOf(n int) []Pair {
	var out []Pair
	for a := range n {
		for b := a + 1; b < n; b++ {
			out = append(out, Pair{a, b})
		}
	}
	return out
}

func TestAllPairsRoundRobin(t *testing.T) {
	for _, c := range []struct {
		n, perHost, rounds int
	}{
		{2, 1, 1}, {3, 1, 3}, {4, 1, 3}, {5, 1, 5}, {6, 1, 5}, {7, 1, 7}, {8, 1, 7},
		{16, 1, 15}, {17, 1, 17}, {100, 1, 99}, {101, 1, 101},
		{8, 2, 4}, {8, 3, 3}, {9, 2, 5}, {100, 4, 25}, {1000, 1, 999}, {1000, 8, 125},
	} {
		s, err := AllPairs(c.n, c.perHost)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Rounds) != c.rounds {
			t.Errorf("AllPairs(%d, %d): %d rounds, want %d", c.n, c.perHost, len(s.Rounds), c.rounds)
		}
		checkEveryPairOnce(t, s, allPairsOf(c.n), c.perHost)
		// With one pair per host and an even fleet, every host plays in
		// every round: the tournament is perfect.
		if c.perHost == 1 && c.n%2 == 0 {
			for i, r := range s.Rounds {
				if len(r) != c.n/2 {
					t.Errorf("AllPairs(%d): round %d has %d pairs, want %d", c.n, i, len(r), c.n/2)
				}
			}
		}
	}
}

func TestRingAndPack(t *testing.T) {
	for _, c := range []struct {
		n, perHost, rounds, pairs int
	}{{2, 1, 1, 1}, {3, 1, 3, 3}, {4, 1, 2, 4}, {5, 1, 3, 5}, {10, 1, 2, 10}, {10, 2, 1, 10}} {
		s, err := Ring(c.n, c.perHost)
		if err != nil {
			t.Fatal(err)
		}
		var want []Pair
		for i := range c.n {
			p := Pair{i, (i + 1) % c.n}.normal()
			if c.n == 2 && i == 1 {
				continue
			}
			want = append(want, p)
		}
		if len(s.Rounds) != c.rounds || s.Len() != c.pairs {
			t.Errorf("Ring(%d, %d): %d rounds of %d pairs, want %d of %d: %v", c.n, c.perHost, len(s.Rounds), s.Len(), c.rounds, c.pairs, s.Rounds)
		}
		checkEveryPairOnce(t, s, want, c.perHost)
	}
	// An explicit list: a star around host 0 must take one round per
	// pair with a limit of one, two per round with two.
	star := []Pair{{0, 1}, {2, 0}, {0, 3}, {0, 4}}
	for perHost, rounds := range map[int]int{1: 4, 2: 2, 4: 1} {
		s, err := Pack(5, star, perHost)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Rounds) != rounds {
			t.Errorf("Pack(star, %d): %d rounds, want %d", perHost, len(s.Rounds), rounds)
		}
		checkEveryPairOnce(t, s, []Pair{{0, 1}, {0, 2}, {0, 3}, {0, 4}}, perHost)
	}
}

func TestScheduleErrors(t *testing.T) {
	for name, f := range map[string]func() error{
		"one host":        func() error { _, err := AllPairs(1, 1); return err },
		"zero per host":   func() error { _, err := AllPairs(4, 0); return err },
		"ring of one":     func() error { _, err := Ring(1, 1); return err },
		"self pair":       func() error { _, err := Pack(3, []Pair{{1, 1}}, 1); return err },
		"out of range":    func() error { _, err := Pack(3, []Pair{{0, 3}}, 1); return err },
		"negative":        func() error { _, err := Pack(3, []Pair{{-1, 2}}, 1); return err },
		"twice reversed":  func() error { _, err := Pack(3, []Pair{{0, 1}, {1, 0}}, 1); return err },
		"check duplicate": func() error { return Schedule{Hosts: 3, Rounds: [][]Pair{{{0, 1}}, {{1, 0}}}}.Check(1) },
		"check overload":  func() error { return Schedule{Hosts: 3, Rounds: [][]Pair{{{0, 1}, {0, 2}}}}.Check(1) },
		"check empty":     func() error { return Schedule{Hosts: 3, Rounds: [][]Pair{{}}}.Check(1) },
	} {
		if err := f(); !errors.Is(err, ErrInvalidSchedule) {
			t.Errorf("%s: %v, want ErrInvalidSchedule", name, err)
		}
	}
}

func TestLimitAndWithout(t *testing.T) {
	s, _ := AllPairs(10, 1) // 9 rounds of 5
	l := s.Limit(2)
	if len(l.Rounds) != 27 { // 5 = 2+2+1 per round
		t.Errorf("Limit(2): %d rounds, want 27", len(l.Rounds))
	}
	for _, r := range l.Rounds {
		if len(r) > 2 {
			t.Errorf("Limit(2): round of %d", len(r))
		}
	}
	checkEveryPairOnce(t, l, allPairsOf(10), 1)
	if got := s.Limit(0); len(got.Rounds) != 9 {
		t.Errorf("Limit(0) changed the schedule")
	}
	w := s.Without(func(p Pair) bool { return p.A == 0 })
	if w.Len() != 45-9 || len(w.Rounds) != 9 {
		t.Errorf("Without host 0's pairs: %d pairs in %d rounds, want 36 in 9", w.Len(), len(w.Rounds))
	}
	if e := s.Without(func(Pair) bool { return true }); e.Len() != 0 || len(e.Rounds) != 0 {
		t.Errorf("Without everything: %v", e.Rounds)
	}
}

func TestParseIPJSON(t *testing.T) {
	// ip -j -4 addr show dev lo, iproute2 6.1.0, as printed here.
	out := `[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"mtu":65536,"qdisc":"noqueue","operstate":"UNKNOWN","group":"default","txqlen":1000,"addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8,"scope":"host","label":"lo","valid_life_time":4294967295,"preferred_life_time":4294967295}]}]`
	p, err := parseIPJSON([]byte(out), "lo")
	if err != nil || p.String() != "127.0.0.1/8" {
		t.Errorf("parseIPJSON: %v %v", p, err)
	}
	if _, err := parseIPJSON([]byte(`[{"ifname":"eth0","addr_info":[]}]`), "eth0"); err == nil {
		t.Errorf("no address: no error")
	}
	if _, err := parseIPJSON([]byte(`[{"addr_info":[{"local":"198.18.1.1","prefixlen":40}]}]`), "eth0"); err == nil {
		t.Errorf("prefix 40: no error")
	}
	if _, err := parseIPJSON([]byte(`not json`), "eth0"); err == nil {
		t.Errorf("garbage: no error")
	}
}
