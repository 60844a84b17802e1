package fleet

import (
	"errors"
	"fmt"
	"slices"
)

// ErrInvalidSchedule is wrapped by the errors of the schedule builders: a
// fleet too small, a host index out of range, a pair of a host with
// itself, a pair given twice, a per-host limit below one.
var ErrInvalidSchedule = errors.New("fleet: invalid schedule")

// Pair is two hosts of a fleet, by their index in the host list, with
// A < B. In a perftest or netperf measurement A runs the server and B the
// client.
type Pair struct {
	A, B int
}

// String returns "0-3".
func (p Pair) String() string { return fmt.Sprintf("%d-%d", p.A, p.B) }

// normal returns p with A < B.
func (p Pair) normal() Pair {
	if p.A > p.B {
		return Pair{p.B, p.A}
	}
	return p
}

// Schedule is the pairs of a fleet to measure, in rounds: the pairs of a
// round run at the same time, the rounds one after the other. Builders
// make schedules where every pair appears once and no host is in more
// than a given number of pairs of the same round.
type Schedule struct {
	// Hosts is the size of the fleet the schedule is for.
	Hosts int
	// Rounds hold the pairs, in run order.
	Rounds [][]Pair
}

// Pairs returns every pair of the schedule, round after round.
func (s Schedule) Pairs() []Pair {
	var out []Pair
	for _, r := range s.Rounds {
		out = append(out, r...)
	}
	return out
}

// Len is the number of pairs.
func (s Schedule) Len() int {
	n := 0
	for _, r := range s.Rounds {
		n += len(r)
	}
	return n
}

// Check verifies a schedule: indices in range, no host paired with
// itself, no pair twice, no empty round, and no host in more than
// perHost pairs of one round. The error wraps ErrInvalidSchedule.
func (s Schedule) Check(perHost int) error {
	if perHost < 1 {
		return fmt.Errorf("%w: per-host limit %d (at least 1)", ErrInvalidSchedule, perHost)
	}
	seen := map[Pair]int{}
	for ri, r := range s.Rounds {
		if len(r) == 0 {
			return fmt.Errorf("%w: round %d is empty", ErrInvalidSchedule, ri+1)
		}
		load := map[int]int{}
		for _, p := range r {
			if err := checkPair(s.Hosts, p); err != nil {
				return err
			}
			if prev, ok := seen[p.normal()]; ok {
				return fmt.Errorf("%w: pair %v in round %d and round %d", ErrInvalidSchedule, p, prev+1, ri+1)
			}
			seen[p.normal()] = ri
			load[p.A]++
			load[p.B]++
			if load[p.A] > perHost || load[p.B] > perHost {
				return fmt.Errorf("%w: round %d has a host in more than %d pairs (pair %v)", ErrInvalidSchedule, ri+1, perHost, p)
			}
		}
	}
	return nil
}

func checkPair(n int, p Pair) error {
	switch {
	case p.A < 0 || p.B < 0 || p.A >= n || p.B >= n:
		return fmt.Errorf("%w: pair %v: hosts are 0-%d", ErrInvalidSchedule, p, n-1)
	case p.A == p.B:
		return fmt.Errorf("%w: pair %v pairs a host with itself", ErrInvalidSchedule, p)
	}
	return nil
}

// AllPairs schedules every pair of n hosts once, as a round-robin
// tournament (the circle method): with perHost 1 each round pairs every
// host at most once, and there are n-1 rounds for even n, n for odd n
// (one host sits out each round). With perHost k, k consecutive
// tournament rounds run as one, which gives ceil(rounds/k) rounds.
//
// Similar to: for a in $hosts; do for b in $hosts; do [ $a \< $b ] && run $a $b; done; done, without a host in two tests at once
func AllPairs(n, perHost int) (Schedule, error) {
	if n < 2 {
		return Schedule{}, fmt.Errorf("%w: %d hosts (at least 2)", ErrInvalidSchedule, n)
	}
	if perHost < 1 {
		return Schedule{}, fmt.Errorf("%w: per-host limit %d (at least 1)", ErrInvalidSchedule, perHost)
	}
	m := n + n%2 // a host m-1 >= n is a bye
	ring := make([]int, m)
	for i := range ring {
		ring[i] = i
	}
	var tour [][]Pair
	for range m - 1 {
		var round []Pair
		for i := range m / 2 {
			a, b := ring[i], ring[m-1-i]
			if a < n && b < n {
				round = append(round, Pair{a, b}.normal())
			}
		}
		tour = append(tour, round)
		// Keep ring[0] fixed, rotate the rest by one.
		last := ring[m-1]
		copy(ring[2:], ring[1:m-1])
		ring[1] = last
	}
	s := Schedule{Hosts: n}
	for i := 0; i < len(tour); i += perHost {
		var merged []Pair
		for _, r := range tour[i:min(i+perHost, len(tour))] {
			merged = append(merged, r...)
		}
		s.Rounds = append(s.Rounds, merged)
	}
	return s, nil
}

// Ring schedules each host with the next one (host i with i+1, the last
// with the first): n pairs for n >= 3, one for n = 2, packed into rounds
// where no host is in more than perHost pairs (2 rounds for even n and
// perHost 1, 3 for odd n).
//
// Similar to: for i in $(seq 0 $((n-1))); do run ${h[i]} ${h[(i+1)%n]}; done
func Ring(n, perHost int) (Schedule, error) {
	if n < 2 {
		return Schedule{}, fmt.Errorf("%w: %d hosts (at least 2)", ErrInvalidSchedule, n)
	}
	var pairs []Pair
	for i := range n {
		p := Pair{i, (i + 1) % n}.normal()
		if !slices.Contains(pairs, p) {
			pairs = append(pairs, p)
		}
	}
	return Pack(n, pairs, perHost)
}

// Pack schedules the caller's pairs of n hosts (in either order, each
// once) into rounds where no host is in more than perHost pairs: each
// round takes, in the given order, every pair left whose hosts still have
// room. The error wraps ErrInvalidSchedule for a pair out of range, of a
// host with itself, or given twice.
//
// Similar to: a hand-written list of "hostA hostB" lines, run a few at a time
func Pack(n int, pairs []Pair, perHost int) (Schedule, error) {
	if perHost < 1 {
		return Schedule{}, fmt.Errorf("%w: per-host limit %d (at least 1)", ErrInvalidSchedule, perHost)
	}
	left := make([]Pair, 0, len(pairs))
	seen := map[Pair]bool{}
	for _, p := range pairs {
		if err := checkPair(n, p); err != nil {
			return Schedule{}, err
		}
		p = p.normal()
		if seen[p] {
			return Schedule{}, fmt.Errorf("%w: pair %v given twice", ErrInvalidSchedule, p)
		}
		seen[p] = true
		left = append(left, p)
	}
	s := Schedule{Hosts: n}
	for len(left) > 0 {
		load := map[int]int{}
		var round, rest []Pair
		for _, p := range left {
			if load[p.A] < perHost && load[p.B] < perHost {
				round = append(round, p)
				load[p.A]++
				load[p.B]++
			} else {
				rest = append(rest, p)
			}
		}
		s.Rounds = append(s.Rounds, round)
		left = rest
	}
	return s, nil
}

// Limit returns the schedule with no round of more than maxPairs pairs
// (a fleet-wide concurrency limit: SSH sessions, switch capacity): longer
// rounds are cut into consecutive pieces. maxPairs < 1 means no limit.
func (s Schedule) Limit(maxPairs int) Schedule {
	if maxPairs < 1 {
		return s
	}
	out := Schedule{Hosts: s.Hosts}
	for _, r := range s.Rounds {
		for i := 0; i < len(r); i += maxPairs {
			out.Rounds = append(out.Rounds, slices.Clone(r[i:min(i+maxPairs, len(r))]))
		}
	}
	return out
}

// Without returns the schedule without the pairs done reports as done
// (measured already, kept in a store), and without the rounds left empty.
func (s Schedule) Without(done func(Pair) bool) Schedule {
	out := Schedule{Hosts: s.Hosts}
	for _, r := range s.Rounds {
		var keep []Pair
		for _, p := range r {
			if !done(p) {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 {
			out.Rounds = append(out.Rounds, keep)
		}
	}
	return out
}
