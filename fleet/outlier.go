package fleet

import (
	"cmp"
	"fmt"
	"slices"
)

// DefaultSlowRatio is the share of its peers' median below which a pair
// counts as slow.
const DefaultSlowRatio = 0.7

// Blame says where an outlier points.
type Blame string

// The blames.
const (
	// BlameLink: one pair is slow while both its hosts are fine with
	// other partners: the cable, the switch ports or the path between
	// them.
	BlameLink Blame = "link"
	// BlameHost: the host is slow (or fails) with every partner: its NIC,
	// firmware, PCIe slot, NUMA placement or configuration.
	BlameHost Blame = "host"
)

// Outlier is a pair, or a host, that stands out of its fleet.
type Outlier struct {
	Blame Blame `json:"blame"`
	// Host is the host blamed (BlameHost), Pairs the pairs behind it.
	Host  string `json:"host,omitempty"`
	Pairs []Pair `json:"pairs"`
	// Names are the pairs as "a–b".
	Names []string `json:"names"`
	// BWGbps is the pair's bandwidth (BlameLink) or the host's median over
	// its pairs (BlameHost); PeerMedianGbps what it was compared with:
	// the better of its two hosts' medians with their other partners (for
	// a host, the median over its partners of their medians with others).
	BWGbps         float64 `json:"bw_gbps"`
	PeerMedianGbps float64 `json:"peer_median_gbps"`
	// Failed is set when the host failed with every partner, or the
	// link's pair failed.
	Failed bool `json:"failed,omitempty"`
}

// String says what stands out and by how much.
func (o Outlier) String() string {
	if o.Blame == BlameHost {
		if o.Failed {
			return fmt.Sprintf("host %s failed with every partner (%d pairs)", o.Host, len(o.Pairs))
		}
		return fmt.Sprintf("host %s is slow with every partner: median %s Gbit/s over %d pairs, peers' median %s Gbit/s",
			o.Host, formatGbps(o.BWGbps), len(o.Pairs), formatGbps(o.PeerMedianGbps))
	}
	if o.Failed {
		return fmt.Sprintf("link %s failed while both hosts work with other partners", o.Names[0])
	}
	return fmt.Sprintf("link %s: %s Gbit/s, %.0f%% of its peers' median %s Gbit/s", o.Names[0],
		formatGbps(o.BWGbps), 100*o.BWGbps/o.PeerMedianGbps, formatGbps(o.PeerMedianGbps))
}

// pairJudgement is a measured pair compared with what each of its two
// hosts does with its other partners.
type pairJudgement struct {
	cell Cell
	// ref holds the median bandwidth of host A's and of host B's other
	// pairs; has says whether the host has any; slowVs whether the pair
	// is below slowRatio of it.
	ref    [2]float64
	has    [2]bool
	slowVs [2]bool
}

// side returns 0 when h is the pair's A, 1 when it is B.
func (j pairJudgement) side(h int) int {
	if j.cell.Pair.A == h {
		return 0
	}
	return 1
}

// linkSlow reports whether the pair is below what both its hosts do with
// others (a host without other pairs does not count against it).
func (j pairJudgement) linkSlow() bool {
	return j.cell.OK && (j.has[0] || j.has[1]) && (j.slowVs[0] || !j.has[0]) && (j.slowVs[1] || !j.has[1])
}

// peerMedian is what the pair is reported against: the better of its
// hosts' medians.
func (j pairJudgement) peerMedian() float64 { return max(j.ref[0], j.ref[1]) }

// hostConsistency: a slow host's pairs agree with each other; a host whose
// lowest pair is under this share of its median has a bad link, not a
// bad self.
const hostConsistency = 0.5

// Outliers names what stands out of a matrix, comparing each pair with
// what its two hosts do with their other partners (the median of each
// host's other pairs). A host is blamed (BlameHost) when it has at least
// two pairs, every one of them failed or below slowRatio
// (DefaultSlowRatio when 0) of its partner's median, and the ones that ran
// agree with each other (none under half the host's median); its pairs
// are not blamed again. A pair is blamed on its link (BlameLink) when it
// failed, or is below slowRatio of both its hosts' medians, while neither
// host is blamed. Pairs without peers (two hosts) are not judged. A fleet
// that is slow everywhere has no outliers: compare it with its line rate
// (LineRateGate).
//
// Similar to: eyeballing a k8s-netperf matrix for the row that is low everywhere and the cell that is low alone
func Outliers(m *Matrix, slowRatio float64) []Outlier {
	if slowRatio <= 0 {
		slowRatio = DefaultSlowRatio
	}
	judged := judgePairs(m, slowRatio)
	var out []Outlier
	blamed := map[int]bool{}
	byHost := map[int][]pairJudgement{}
	for _, j := range judged {
		byHost[j.cell.Pair.A] = append(byHost[j.cell.Pair.A], j)
		byHost[j.cell.Pair.B] = append(byHost[j.cell.Pair.B], j)
	}
	for h, name := range m.Hosts {
		o, ok := hostOutlier(m, h, name, byHost[h])
		if ok {
			blamed[h] = true
			out = append(out, o)
		}
	}
	for _, j := range judged {
		p := j.cell.Pair
		if !(j.linkSlow() || !j.cell.OK) || blamed[p.A] || blamed[p.B] {
			continue
		}
		out = append(out, Outlier{Blame: BlameLink, Pairs: []Pair{p}, Names: pairNames(m, []Pair{p}),
			BWGbps: j.cell.BWGbps, PeerMedianGbps: j.peerMedian(), Failed: !j.cell.OK})
	}
	return out
}

// hostOutlier judges host h from its pairs.
func hostOutlier(m *Matrix, h int, name string, js []pairJudgement) (Outlier, bool) {
	var pairs []Pair
	var bws, peers []float64
	failed := true
	for _, j := range js {
		pairs = append(pairs, j.cell.Pair)
		if !j.cell.OK {
			continue
		}
		failed = false
		partner := 1 - j.side(h)
		if !j.has[partner] || !j.slowVs[partner] {
			return Outlier{}, false
		}
		bws = append(bws, j.cell.BWGbps)
		peers = append(peers, j.ref[partner])
	}
	if len(pairs) < 2 {
		return Outlier{}, false
	}
	if len(bws) > 0 && slices.Min(bws) < hostConsistency*median(bws) {
		return Outlier{}, false
	}
	slices.SortFunc(pairs, func(x, y Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return Outlier{Blame: BlameHost, Host: name, Pairs: pairs, Names: pairNames(m, pairs),
		BWGbps: median(bws), PeerMedianGbps: median(peers), Failed: failed}, true
}

// judgePairs compares each cell with the median bandwidth of each of its
// two hosts with their other partners. A slow link is below both; a pair
// of a slow host is below its partner's only. (One median over both
// hosts' pairs would sit between a slow host's pairs and the rest and
// hide the host in a large fleet.) Failed cells are kept so that hosts
// failing everywhere show. Each host's bandwidths are sorted once, so P
// pairs cost O(P log d).
func judgePairs(m *Matrix, slowRatio float64) []pairJudgement {
	byHost := map[int][]float64{}
	for _, c := range m.Cells {
		if c.OK {
			byHost[c.Pair.A] = append(byHost[c.Pair.A], c.BWGbps)
			byHost[c.Pair.B] = append(byHost[c.Pair.B], c.BWGbps)
		}
	}
	for _, vs := range byHost {
		slices.Sort(vs)
	}
	out := make([]pairJudgement, 0, len(m.Cells))
	for _, c := range m.Cells {
		j := pairJudgement{cell: c}
		if c.OK {
			for i, h := range []int{c.Pair.A, c.Pair.B} {
				j.ref[i], j.has[i] = medianWithout(byHost[h], c.BWGbps)
				j.slowVs[i] = j.has[i] && c.BWGbps < slowRatio*j.ref[i]
			}
		}
		out = append(out, j)
	}
	return out
}

// medianWithout returns the median of the sorted list s without one
// occurrence of v (which s holds); false when nothing is left.
func medianWithout(s []float64, v float64) (float64, bool) {
	n := len(s) - 1
	if n <= 0 {
		return 0, false
	}
	skip, _ := slices.BinarySearch(s, v)
	at := func(i int) float64 { // the i-th element of s without s[skip]
		if i >= skip {
			return s[i+1]
		}
		return s[i]
	}
	if n%2 == 1 {
		return at(n / 2), true
	}
	return (at(n/2-1) + at(n/2)) / 2, true
}

func pairNames(m *Matrix, ps []Pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, m.Hosts[p.A]+"–"+m.Hosts[p.B])
	}
	return out
}

// median of vs (vs is not changed); 0 for none.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	return sortedMedian(s)
}

// sortedMedian is the median of a sorted list; 0 for none.
func sortedMedian(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
