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
	// the median of the pairs that share a host with it (for a host, the
	// median of its pairs' peer medians).
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
// bandwidth is below slowRatio (DefaultSlowRatio when 0) of the median of
// its peers: the other measured pairs that share a host with it. A host
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
	for h, name := range m.Hosts {
		var pairs []Pair
		var bws, peers []float64
		all, failed := true, true
		for _, j := range judged {
			if !j.cell.Pair.has(h) {
				continue
			}
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

// judgePairs compares each cell with the median of its peers. Failed
// cells are kept (unjudged) so that hosts failing everywhere show.
func judgePairs(m *Matrix, slowRatio float64) []pairJudgement {
	var out []pairJudgement
	for _, c := range m.Cells {
		j := pairJudgement{cell: c}
		if c.OK {
			var peers []float64
			for _, o := range m.Cells {
				if o.OK && o.Pair != c.Pair && (o.Pair.has(c.Pair.A) || o.Pair.has(c.Pair.B)) {
					peers = append(peers, o.BWGbps)
				}
			}
			if len(peers) > 0 {
				j.judged = true
				j.peerMedian = median(peers)
				j.slow = c.BWGbps < slowRatio*j.peerMedian
			}
		}
		out = append(out, j)
	}
	return out
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
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
