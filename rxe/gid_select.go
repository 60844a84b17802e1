package rxe

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Policy is the rule SelectGID follows.
type Policy int

// Selection policies. All three pick the same index on a table with a RoCE
// v2 IPv4-mapped entry, which is the runbook's case.
const (
	// PolicyPerftestScore mirrors compute_gid_score of perftest releases
	// after 25.01: +100 for the wanted address family (IPv4-mapped unless
	// IPv6 is set), +10 for a GID that is not link-local, +2 for RoCE v2 or
	// +1 for RoCE v1; the highest score wins, the lowest index on ties.
	PolicyPerftestScore Policy = iota
	// PolicyPerftestPairwise mirrors get_best_gid_index of perftest 4.5
	// (Debian bookworm) up to 25.01 (Debian trixie): starting at index 0, a
	// later entry replaces the current one when it has the wanted family and
	// the current one has not, or else when its RoCE version is higher.
	// Link-local GIDs are not avoided: with IPv6 addresses only it keeps
	// fe80::, as observed in the lab (testdata/*/capture.txt.gz).
	PolicyPerftestPairwise
	// PolicyRoCEv2IPv4 is the runbook rule: the first RoCE v2 entry with an
	// IPv4 address in `show_gids`. It fails when there is none.
	PolicyRoCEv2IPv4
)

// String names the policy.
func (p Policy) String() string {
	switch p {
	case PolicyPerftestScore:
		return "perftest-score"
	case PolicyPerftestPairwise:
		return "perftest-pairwise"
	case PolicyRoCEv2IPv4:
		return "rocev2-ipv4"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy parses a policy name as String prints it.
func ParsePolicy(s string) (Policy, error) {
	for p := PolicyPerftestScore; p <= PolicyRoCEv2IPv4; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("rxe: unknown GID policy %q (perftest-score, perftest-pairwise, rocev2-ipv4)", s)
}

// SelectOptions tune SelectGID.
type SelectOptions struct {
	Policy Policy
	// IPv6 prefers GIDs that are not IPv4-mapped, like perftest --ipv6.
	IPv6 bool
}

// Selection is the GID index chosen for a port and why.
type Selection struct {
	Entry  GIDEntry `json:"entry"`
	Policy Policy   `json:"policy"`
	// Score is the compute_gid_score value (PolicyPerftestScore only).
	Score  int    `json:"score,omitempty"`
	Reason string `json:"reason"`
}

// SelectGID picks the GID index of a port's table the way perftest does when
// it is run without -x (or, with PolicyRoCEv2IPv4, the way the runbook picks
// it from show_gids), and says why. Pass the index to perftest's -x on both
// ends and check them with CheckCompatible.
//
// Similar to: show_gids | awk '$6 == "v2" && $5 != ""' | head -1
func SelectGID(t GIDTable, opts SelectOptions) (Selection, error) {
	sel := Selection{Policy: opts.Policy}
	t.Entries = slices.SortedFunc(slices.Values(t.Entries), func(a, b GIDEntry) int { return cmp.Compare(a.Index, b.Index) })
	var (
		e   GIDEntry
		ok  bool
		why string
	)
	switch opts.Policy {
	case PolicyPerftestScore:
		e, sel.Score, ok, why = selectScore(t, opts.IPv6)
	case PolicyPerftestPairwise:
		e, ok, why = selectPairwise(t, opts.IPv6)
	case PolicyRoCEv2IPv4:
		e, ok, why = selectRoCEv2IPv4(t)
	default:
		return sel, fmt.Errorf("rxe: unknown GID policy %d", int(opts.Policy))
	}
	if !ok {
		return sel, &Error{Op: "select GID", Name: fmt.Sprintf("%s/%d", t.Device, t.Port), Kind: ErrNoGID,
			Err: fmt.Errorf("%s: %s", opts.Policy, why)}
	}
	sel.Entry = e
	sel.Reason = describe(e) + "; " + why
	return sel, nil
}

// describe says what an entry is: "RoCE v2, IPv4-mapped 198.18.20.1, netdev v0".
func describe(e GIDEntry) string {
	parts := []string{e.Type.String()}
	switch ip, ok := e.IPv4(); {
	case ok:
		parts = append(parts, "IPv4-mapped "+ip.String())
	case e.GID.IsLinkLocal():
		parts = append(parts, "link-local "+e.GID.Addr().String())
	default:
		parts = append(parts, "IPv6 "+e.GID.Addr().String())
	}
	if e.Netdev != "" {
		parts = append(parts, "netdev "+e.Netdev)
	}
	return fmt.Sprintf("index %d: %s", e.Index, strings.Join(parts, ", "))
}

// gidScore is perftest's compute_gid_score and its explanation.
func gidScore(e GIDEntry, ipv6 bool) (int, string) {
	score := 0
	var why []string
	if e.GID.perftestIPv4() != ipv6 {
		score += 100
		if ipv6 {
			why = append(why, "IPv6 +100")
		} else {
			why = append(why, "IPv4-mapped +100")
		}
	}
	if !e.GID.IsLinkLocal() {
		score += 10
		why = append(why, "not link-local +10")
	}
	switch e.Type {
	case GIDTypeRoCEv2:
		score += 2
		why = append(why, "RoCE v2 +2")
	case GIDTypeRoCEv1:
		score++
		why = append(why, "RoCE v1 +1")
	}
	return score, strings.Join(why, ", ")
}

func selectScore(t GIDTable, ipv6 bool) (GIDEntry, int, bool, string) {
	best, bestScore, bestWhy, found := GIDEntry{}, -1, "", false
	for _, e := range t.Entries {
		s, why := gidScore(e, ipv6)
		if s > bestScore || (s == bestScore && e.Index < best.Index) {
			best, bestScore, bestWhy, found = e, s, why, true
		}
	}
	if !found {
		return best, 0, false, "the table has no entries"
	}
	return best, bestScore, true, fmt.Sprintf("score %d (%s), highest of %d entries", bestScore, bestWhy, len(t.Entries))
}

// selectPairwise replays get_best_gid_index over every slot of the table,
// empty ones included: perftest queries them too, sees a zero GID (not
// IPv4-mapped) and skips the RoCE-version comparison because the type query
// fails for an empty slot.
func selectPairwise(t GIDTable, ipv6 bool) (GIDEntry, bool, string) {
	slots := t.Slots
	for _, e := range t.Entries {
		slots = max(slots, e.Index+1)
	}
	byIndex := make(map[int]GIDEntry, len(t.Entries))
	for _, e := range t.Entries {
		byIndex[e.Index] = e
	}
	cur := 0
	why := "index 0, the starting point"
	for i := 1; i < slots; i++ {
		c, cOK := byIndex[cur]
		r, rOK := byIndex[i]
		cIPv4 := cOK && c.GID.perftestIPv4()
		rIPv4 := rOK && r.GID.perftestIPv4()
		switch {
		case rIPv4 && !cIPv4 && !ipv6:
			cur, why = i, "the first IPv4-mapped GID"
		case !rIPv4 && cIPv4 && ipv6:
			cur, why = i, "the first GID that is not IPv4-mapped"
		case cOK && rOK && r.Type.perftestRank() > c.Type.perftestRank():
			cur, why = i, fmt.Sprintf("a higher RoCE version than index %d", c.Index)
		}
	}
	e, ok := byIndex[cur]
	if !ok {
		return e, false, fmt.Sprintf("perftest would use index %d, an empty slot", cur)
	}
	return e, true, "perftest get_best_gid_index keeps " + why
}

func selectRoCEv2IPv4(t GIDTable) (GIDEntry, bool, string) {
	for _, e := range t.Entries {
		if _, ok := e.IPv4(); ok && e.Type == GIDTypeRoCEv2 {
			return e, true, "the first RoCE v2 entry with an IPv4 address"
		}
	}
	return GIDEntry{}, false, "no RoCE v2 entry with an IPv4 address (is an IPv4 address set on the netdev?)"
}
