package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// SecondPassOptions tune Plan.SecondPass.
type SecondPassOptions struct {
	// Partners is how many hosts that passed each suspect is paired
	// with; 0 means 2.
	Partners int
	// SlowRatio is the share below which a pair counts as slow: of its
	// hosts' medians for the first pass's outliers (Outliers), of the
	// reference for a retest; 0 means DefaultSlowRatio.
	SlowRatio float64
}

// Culprit says where the second pass puts the fault of one suspect pair.
type Culprit string

// The culprits.
const (
	// CulpritHost: one host stays bad with partners that passed
	// everything; its first partner is fine with them.
	CulpritHost Culprit = "host"
	// CulpritBothHosts: both hosts stay bad with good partners.
	CulpritBothHosts Culprit = "both hosts"
	// CulpritLink: both hosts are fine with good partners, and the pair
	// is still bad when measured again: the link between them.
	CulpritLink Culprit = "link"
	// CulpritTransient: both hosts are fine with good partners and the
	// pair itself passes when measured again.
	CulpritTransient Culprit = "transient"
	// CulpritUndecided: no host passed everything to pair with.
	CulpritUndecided Culprit = "undecided"
)

// Suspect is one pair the first pass failed or flagged, with the second
// pass's retests and verdict.
type Suspect struct {
	Pair  Pair   `json:"pair"`
	Name  string `json:"name"` // "a–b"
	First Cell   `json:"first"`
	// Retests are the suspect's hosts with good partners, and the pair
	// itself measured again.
	Retests []Cell  `json:"retests"`
	Culprit Culprit `json:"culprit"`
	// Host is the host blamed for CulpritHost ("" otherwise).
	Host string `json:"host,omitempty"`
	// Why says it with the numbers.
	Why string `json:"why"`
}

// SecondPass is the result of Plan.SecondPass.
type SecondPass struct {
	// ReferenceGbps is the median of the first pass's good pairs: what a
	// retest is held against.
	ReferenceGbps float64   `json:"reference_gbps"`
	Good          []string  `json:"good"` // hosts that passed a pair and are not slow with everyone
	Suspects      []Suspect `json:"suspects"`
	Matrix        *Matrix   `json:"matrix"` // the retests as measured
}

// SecondPass re-pairs the hosts of every pair that failed or stood out
// (Outliers) in m with good hosts (that passed a
// pair and are not slow with every partner), measures each suspect pair once more, and names the culprit: a
// host that stays bad with good partners (not its partner), both hosts,
// the link between two hosts that are fine elsewhere, or a transient.
// The retests run as a plan of their own (Name + "/second-pass", the
// plan's hosts, measurer, deadline and store).
//
// Similar to: Cluster Health Scanner's second pass, which re-pairs each failed node with a passed one
func (p Plan) SecondPass(ctx context.Context, m *Matrix, opt SecondPassOptions) (*SecondPass, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if opt.Partners <= 0 {
		opt.Partners = 2
	}
	if opt.SlowRatio <= 0 {
		opt.SlowRatio = DefaultSlowRatio
	}
	sp := &SecondPass{}
	bad := suspectPairs(m, opt)
	var goodBW []float64
	passed := map[int]bool{}
	for _, c := range m.Cells {
		if !bad[c.Pair] && c.OK {
			goodBW = append(goodBW, c.BWGbps)
			passed[c.Pair.A], passed[c.Pair.B] = true, true
		}
	}
	sp.ReferenceGbps = median(goodBW)
	blamed := map[string]bool{}
	for _, o := range Outliers(m, opt.SlowRatio) {
		if o.Blame == BlameHost {
			blamed[o.Host] = true
		}
	}
	// Good partners passed at least one pair and are not slow with
	// everyone: in three hosts with one slow, the other two.
	var good []int
	for h := range p.Hosts {
		if passed[h] && !blamed[p.Hosts[h].Name] {
			good = append(good, h)
			sp.Good = append(sp.Good, p.Hosts[h].Name)
		}
	}
	var suspects []Pair
	for _, c := range m.Cells {
		if bad[c.Pair] {
			suspects = append(suspects, c.Pair)
		}
	}
	pairs := retestPairs(suspects, good, opt.Partners)
	if len(pairs) == 0 {
		for _, pr := range suspects {
			sp.Suspects = append(sp.Suspects, p.judgeSuspect(m, pr, nil, good, sp.ReferenceGbps, opt))
		}
		return sp, nil
	}
	sched, err := Pack(len(p.Hosts), pairs, 1)
	if err != nil {
		return nil, err
	}
	rp := p
	rp.Name, rp.Schedule = p.Name+"/second-pass", sched
	sp.Matrix, err = rp.Run(ctx)
	for _, pr := range suspects {
		sp.Suspects = append(sp.Suspects, p.judgeSuspect(m, pr, sp.Matrix, good, sp.ReferenceGbps, opt))
	}
	return sp, err
}

// suspectPairs are the first pass's failed pairs and the outliers'
// pairs. A fleet below its line rate everywhere has no suspects: that is
// the gate's finding, not a host's or a link's.
func suspectPairs(m *Matrix, opt SecondPassOptions) map[Pair]bool {
	bad := map[Pair]bool{}
	for _, c := range m.Cells {
		if !c.OK {
			bad[c.Pair] = true
		}
	}
	for _, o := range Outliers(m, opt.SlowRatio) {
		for _, pr := range o.Pairs {
			bad[pr] = true
		}
	}
	return bad
}

// badCell reports whether a retest failed or is below SlowRatio of ref.
func (opt SecondPassOptions) badCell(c Cell, ref float64) bool {
	return !c.OK || ref > 0 && c.BWGbps < opt.SlowRatio*ref
}

// retestPairs pairs each host of each suspect with up to k good hosts
// (a different choice per host where there are enough), and each suspect
// pair with itself once more.
func retestPairs(suspects []Pair, good []int, k int) []Pair {
	seen := map[Pair]bool{}
	var out []Pair
	add := func(pr Pair) {
		pr = pr.normal()
		if pr.A != pr.B && !seen[pr] {
			seen[pr] = true
			out = append(out, pr)
		}
	}
	next := 0
	for _, s := range suspects {
		partners := slices.DeleteFunc(slices.Clone(good), func(g int) bool { return g == s.A || g == s.B })
		if len(partners) == 0 {
			continue
		}
		for _, h := range []int{s.A, s.B} {
			for range min(k, len(partners)) {
				add(Pair{h, partners[next%len(partners)]})
				next++
			}
		}
		add(s)
	}
	return out
}

// judgeSuspect names the culprit of one suspect pair from its retests.
func (p Plan) judgeSuspect(m *Matrix, pr Pair, re *Matrix, good []int, ref float64, opt SecondPassOptions) Suspect {
	first, _ := m.Cell(pr.A, pr.B)
	s := Suspect{Pair: pr, Name: m.hostName(pr.A) + "–" + m.hostName(pr.B), First: first, Culprit: CulpritUndecided}
	if re == nil {
		s.Why = "no other host passed a pair: nobody to re-pair the suspects with"
		return s
	}
	verdict := func(h int) (bad, n int, seen []string) {
		for _, c := range re.Cells {
			partner := c.Pair.A
			if partner == h {
				partner = c.Pair.B
			}
			if c.Pair == pr || (c.Pair.A != h && c.Pair.B != h) || !slices.Contains(good, partner) {
				continue
			}
			n++
			what := fmt.Sprintf("%s–%s %s Gbit/s", c.A, c.B, formatGbps(c.BWGbps))
			if !c.OK {
				what = fmt.Sprintf("%s–%s failed (%s)", c.A, c.B, c.Error)
			}
			if opt.badCell(c, ref) {
				bad++
				what += " (bad)"
			}
			seen = append(seen, what)
			s.Retests = append(s.Retests, c)
		}
		return bad, n, seen
	}
	badA, nA, seenA := verdict(pr.A)
	badB, nB, seenB := verdict(pr.B)
	again, ranAgain := re.Cell(pr.A, pr.B)
	if ranAgain {
		s.Retests = append(s.Retests, again)
	}
	hostBad := func(bad, n int) bool { return n > 0 && bad == n }
	evidence := fmt.Sprintf("with good partners: %s; %s (reference %s Gbit/s)",
		strings.Join(seenA, ", "), strings.Join(seenB, ", "), formatGbps(ref))
	switch a, b := hostBad(badA, nA), hostBad(badB, nB); {
	case nA == 0 || nB == 0:
		s.Why = "the retests did not run: " + evidence
	case a && b:
		s.Culprit, s.Why = CulpritBothHosts, "both hosts stay bad "+evidence
	case a || b:
		h, other := pr.A, pr.B
		if b {
			h, other = pr.B, pr.A
		}
		s.Culprit, s.Host = CulpritHost, m.hostName(h)
		s.Why = fmt.Sprintf("host %s stays bad with good partners while %s is fine with them: %s", m.hostName(h), m.hostName(other), evidence)
	case !ranAgain:
		s.Why = "both hosts are fine with good partners, and the pair was not measured again: " + evidence
	case opt.badCell(again, ref):
		s.Culprit = CulpritLink
		now := formatGbps(again.BWGbps) + " Gbit/s"
		if !again.OK {
			now = "failed: " + again.Error
		}
		s.Why = fmt.Sprintf("both hosts are fine with good partners, and %s is still bad (%s): the link between them; %s",
			s.Name, now, evidence)
	default:
		s.Culprit = CulpritTransient
		s.Why = fmt.Sprintf("both hosts are fine with good partners, and %s passes now (%s Gbit/s): %s", s.Name, formatGbps(again.BWGbps), evidence)
	}
	s.Retests = slices.Clip(s.Retests)
	return s
}
