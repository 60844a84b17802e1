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
	// a host, the median of its pairs' peer medians).
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

// pairJudgement is a measured pair compared with its peers.
type pairJudgement struct {
	cell       Cell
	peerMedian float64
	slow       bool
	judged     bool // it had peers to compare with
}

// Outliers names what stands out of a matrix. A pair is slow when its
// bandwidth is below slowRatio (DefaultSlowRatio when 0) of its peers'
// median: the median of each of its hosts' other pairs, the better of the
// two. A host
// with at least two pairs that are all slow or failed is blamed
// (BlameHost), and its pairs are not blamed again; every other slow or
// failed pair is blamed on its link (BlameLink, Failed for a failure). Pairs without peers (two hosts) are
// not judged. A fleet that is slow everywhere has no outliers: compare it
// with its line rate (Gate).
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
		var pairs []Pair
		var bws, peers []float64
		all, failed := true, true
		for _, j := range byHost[h] {
			pairs = append(pairs, j.cell.Pair)
			if j.cell.OK {
				failed = false
				bws = append(bws, j.cell.BWGbps)
				peers = append(peers, j.peerMedian)
				all = all && j.judged && j.slow
			}
		}
		if len(pairs) < 2 || !all {
			continue
		}
		blamed[h] = true
		slices.SortFunc(pairs, func(x, y Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
		out = append(out, Outlier{Blame: BlameHost, Host: name, Pairs: pairs, Names: pairNames(m, pairs),
			BWGbps: median(bws), PeerMedianGbps: median(peers), Failed: failed})
	}
	for _, j := range judged {
		p := j.cell.Pair
		if !(j.slow || !j.cell.OK) || blamed[p.A] || blamed[p.B] {
			continue
		}
		out = append(out, Outlier{Blame: BlameLink, Pairs: []Pair{p}, Names: pairNames(m, []Pair{p}),
			BWGbps: j.cell.BWGbps, PeerMedianGbps: j.peerMedian, Failed: !j.cell.OK})
	}
	return out
}

// judgePairs compares each cell with its peers: the median bandwidth of
// each of its two hosts with their other partners, the better of the two.
// A slow link is below both; a pair of a slow host is below its partner's
// (a plain median over both hosts' pairs would sit between the two
// populations and hide a slow host in a large fleet). Failed cells are
// kept (unjudged) so that hosts failing everywhere show. Each host's
// bandwidths are sorted once, so P pairs cost O(P log d).
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
			ma, okA := medianWithout(byHost[c.Pair.A], c.BWGbps)
			mb, okB := medianWithout(byHost[c.Pair.B], c.BWGbps)
			if okA || okB {
				j.judged = true
				j.peerMedian = max(ma, mb)
				j.slow = c.BWGbps < slowRatio*j.peerMedian
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
