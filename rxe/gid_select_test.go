package rxe

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSelectGIDMatchesPerftest checks the selection against the index
// perftest itself printed ("GID index : N", run without -x) on the same
// GID table in the lab: perftest 4.5+0.17 (bookworm) and 25.01 (trixie) both
// behave like get_best_gid_index. With IPv6 addresses only they keep the
// link-local GID 0, where compute_gid_score would take the global 2001:2::1.
func TestSelectGIDMatchesPerftest(t *testing.T) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			caps := suiteCapture(t, s.name)
			for _, tc := range []struct {
				scenario              string
				perftest, score, rule int // -1: ErrNoGID
			}{
				{"rxe0-ipv6-only", 0, 1, -1},
				{"rxe0-ipv4", 2, 2, 2},
			} {
				sc := caps[tc.scenario]
				table, err := sc.root().GIDTable("rxe0", 1)
				if err != nil {
					t.Fatal(err)
				}
				if got := perftestGIDIndex(t, sc); got != tc.perftest {
					t.Fatalf("%s: fixture says perftest chose %d, test expects %d", tc.scenario, got, tc.perftest)
				}
				for pol, want := range map[Policy]int{PolicyPerftestPairwise: tc.perftest, PolicyPerftestScore: tc.score, PolicyRoCEv2IPv4: tc.rule} {
					sel, err := SelectGID(table, SelectOptions{Policy: pol})
					if want < 0 {
						if !errors.Is(err, ErrNoGID) {
							t.Errorf("%s %v: err = %v, want ErrNoGID", tc.scenario, pol, err)
						}
						continue
					}
					if err != nil || sel.Entry.Index != want {
						t.Errorf("%s %v: index %d, %v; want %d", tc.scenario, pol, sel.Entry.Index, err, want)
					}
				}
			}
		})
	}
}

func TestSelectGIDReason(t *testing.T) {
	table, err := suiteCapture(t, "trixie")["rxe0-ipv4"].root().GIDTable("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	for pol, want := range map[Policy]Selection{
		PolicyPerftestScore: {Policy: PolicyPerftestScore, Score: 112,
			Reason: "index 2: RoCE v2, IPv4-mapped 198.18.20.1, netdev v0; score 112 (IPv4-mapped +100, not link-local +10, RoCE v2 +2), highest of 3 entries"},
		PolicyPerftestPairwise: {Policy: PolicyPerftestPairwise,
			Reason: "index 2: RoCE v2, IPv4-mapped 198.18.20.1, netdev v0; perftest get_best_gid_index keeps the first IPv4-mapped GID"},
		PolicyRoCEv2IPv4: {Policy: PolicyRoCEv2IPv4,
			Reason: "index 2: RoCE v2, IPv4-mapped 198.18.20.1, netdev v0; the first RoCE v2 entry with an IPv4 address"},
	} {
		want.Entry = table.Entries[2]
		got, err := SelectGID(table, SelectOptions{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%v (-want +got):\n%s", pol, d)
		}
	}
	// --ipv6: the global IPv6 GID wins.
	got, err := SelectGID(table, SelectOptions{IPv6: true})
	if err != nil || got.Entry.Index != 1 || got.Score != 112 || !strings.Contains(got.Reason, "IPv6 +100") {
		t.Errorf("IPv6: %+v, %v", got, err)
	}
}

// entry builds a synthetic GID table entry (hardware layouts such as mlx5,
// which list a RoCE v1 and a v2 entry per address, cannot be captured in
// the lab).
func entry(i int, addr string, typ GIDType) GIDEntry {
	return GIDEntry{Device: "mlx5_0", Port: 1, Index: i, GID: gidOf(addr), Type: typ, Netdev: "ens1f0"}
}

func TestSelectGIDHardwareLayouts(t *testing.T) {
	v1, v2 := GIDTypeRoCEv1, GIDTypeRoCEv2
	tests := []struct {
		name              string
		entries           []GIDEntry
		slots             int
		score, pair, rule int // -1: ErrNoGID
	}{
		{"mlx5 v1/v2 pairs", []GIDEntry{entry(0, "fe80::1", v1), entry(1, "fe80::1", v2), entry(2, "10.0.0.1", v1), entry(3, "10.0.0.1", v2)}, 256, 3, 3, 3},
		{"two IPv4 addresses", []GIDEntry{entry(0, "fe80::1", v1), entry(1, "fe80::1", v2), entry(2, "10.0.0.1", v1), entry(3, "10.0.0.1", v2), entry(4, "10.0.1.1", v1), entry(5, "10.0.1.1", v2)}, 256, 3, 3, 3},
		{"IPv4 only as RoCE v1", []GIDEntry{entry(0, "fe80::1", v1), entry(1, "2001:db8::1", v2), entry(2, "10.0.0.1", v1)}, 16, 2, 2, -1},
		// get_best_gid_index compares RoCE versions across families: a v2
		// IPv6 GID after a v1 IPv4 one takes over; the score keeps IPv4.
		{"v2 IPv6 after v1 IPv4", []GIDEntry{entry(0, "fe80::1", v1), entry(1, "10.0.0.1", v1), entry(2, "2001:db8::1", v2)}, 16, 1, 2, -1},
		{"link-local only", []GIDEntry{entry(0, "fe80::1", v1), entry(1, "fe80::1", v2)}, 16, 1, 1, -1},
		{"empty", nil, 16, -1, -1, -1},
		// Index 0 empty: perftest starts from an empty slot and only moves
		// to an IPv4-mapped GID.
		{"no index 0, no IPv4", []GIDEntry{entry(1, "2001:db8::1", v2)}, 16, 1, -1, -1},
		{"no index 0", []GIDEntry{entry(1, "2001:db8::1", v2), entry(2, "10.0.0.1", v2)}, 16, 2, 2, 2},
	}
	for _, tt := range tests {
		table := GIDTable{Device: "mlx5_0", Port: 1, Slots: tt.slots, Entries: tt.entries}
		for pol, want := range map[Policy]int{PolicyPerftestScore: tt.score, PolicyPerftestPairwise: tt.pair, PolicyRoCEv2IPv4: tt.rule} {
			sel, err := SelectGID(table, SelectOptions{Policy: pol})
			switch {
			case want < 0 && !errors.Is(err, ErrNoGID):
				t.Errorf("%s, %v: %+v, %v; want ErrNoGID", tt.name, pol, sel.Entry, err)
			case want >= 0 && (err != nil || sel.Entry.Index != want):
				t.Errorf("%s, %v: index %d, %v; want %d", tt.name, pol, sel.Entry.Index, err, want)
			}
		}
	}
}

// TestSelectGIDIPv6Pairwise covers perftest --ipv6 with get_best_gid_index:
// once on an IPv4-mapped GID, the next empty slot (a zero GID, which is not
// IPv4-mapped) replaces it, so perftest ends on an empty slot.
func TestSelectGIDIPv6Pairwise(t *testing.T) {
	v1, v2 := GIDTypeRoCEv1, GIDTypeRoCEv2
	table := GIDTable{Slots: 8, Entries: []GIDEntry{entry(0, "fe80::1", v1), entry(1, "10.0.0.1", v2)}}
	if _, err := SelectGID(table, SelectOptions{Policy: PolicyPerftestPairwise, IPv6: true}); !errors.Is(err, ErrNoGID) || !strings.Contains(err.Error(), "empty slot") {
		t.Errorf("err = %v, want ErrNoGID naming an empty slot", err)
	}
	table.Slots = 2
	if sel, err := SelectGID(table, SelectOptions{Policy: PolicyPerftestPairwise, IPv6: true}); err != nil || sel.Entry.Index != 1 {
		t.Errorf("full table: %+v, %v", sel.Entry, err)
	}
	if _, err := SelectGID(table, SelectOptions{Policy: Policy(7)}); err == nil {
		t.Error("unknown policy: no error")
	}
}

func TestParsePolicy(t *testing.T) {
	for p := PolicyPerftestScore; p <= PolicyRoCEv2IPv4; p++ {
		if got, err := ParsePolicy(p.String()); err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParsePolicy("best"); err == nil {
		t.Error("ParsePolicy(best): no error")
	}
}

// randomTable makes a GID table like the kernel's: the link-local GID
// first, then one entry per address and supported RoCE version (v1 before
// v2), with empty slots between, in a table of random size.
func randomTable(r *rand.Rand) GIDTable {
	types := [][]GIDType{{GIDTypeRoCEv2}, {GIDTypeRoCEv1, GIDTypeRoCEv2}, {GIDTypeRoCEv1}}[r.IntN(3)]
	addrs := []string{"fe80::1"}
	for n := r.IntN(5); n > 0; n-- {
		switch r.IntN(3) {
		case 0:
			addrs = append(addrs, fmt.Sprintf("198.18.%d.%d", r.IntN(10), 1+r.IntN(250)))
		case 1:
			addrs = append(addrs, fmt.Sprintf("2001:2::%x", 1+r.IntN(1000)))
		default:
			addrs = append(addrs, fmt.Sprintf("fe80::%x", 2+r.IntN(1000)))
		}
	}
	t := GIDTable{Device: "dev", Port: 1}
	i := 0
	for _, a := range addrs {
		for _, ty := range types {
			t.Entries = append(t.Entries, GIDEntry{Device: "dev", Port: 1, Index: i, GID: gidOf(a), Type: ty})
			i += 1 + r.IntN(2)*r.IntN(3) // sometimes leave empty slots
		}
	}
	t.Slots = i + r.IntN(8)
	return t
}

func TestSelectGIDProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 5000; n++ {
		table := randomTable(r)
		for _, ipv6 := range []bool{false, true} {
			opts := SelectOptions{IPv6: ipv6}
			score, err := SelectGID(table, opts)
			if err != nil {
				t.Fatalf("score: %v on %+v", err, table)
			}
			// 1. The pick is an entry of the table with the highest score,
			//    and the lowest index among equals.
			for _, e := range table.Entries {
				s, _ := gidScore(e, ipv6)
				if s > score.Score || (s == score.Score && e.Index < score.Entry.Index) {
					t.Fatalf("score picked %d (%d) but %d scores %d: %+v", score.Entry.Index, score.Score, e.Index, s, table)
				}
			}
			if got, ok := table.Entry(score.Entry.Index); !ok || got != score.Entry {
				t.Fatalf("pick %+v is not in the table", score.Entry)
			}
			// 2. The order the entries come in does not matter.
			shuffled := table
			shuffled.Entries = append([]GIDEntry(nil), table.Entries...)
			r.Shuffle(len(shuffled.Entries), func(i, j int) {
				shuffled.Entries[i], shuffled.Entries[j] = shuffled.Entries[j], shuffled.Entries[i]
			})
			for _, pol := range []Policy{PolicyPerftestScore, PolicyPerftestPairwise, PolicyRoCEv2IPv4} {
				opts.Policy = pol
				a, errA := SelectGID(table, opts)
				b, errB := SelectGID(shuffled, opts)
				if a.Entry != b.Entry || (errA == nil) != (errB == nil) {
					t.Fatalf("%v: order changes the pick: %v/%v vs %v/%v", pol, a.Entry.Index, errA, b.Entry.Index, errB)
				}
			}
			// 3. With a RoCE v2 IPv4 entry (and no --ipv6), all three
			//    policies agree: the runbook's index is perftest's.
			rule, err := SelectGID(table, SelectOptions{Policy: PolicyRoCEv2IPv4})
			if err == nil && !ipv6 {
				pair, perr := SelectGID(table, SelectOptions{Policy: PolicyPerftestPairwise})
				if score.Entry != rule.Entry || perr != nil || pair.Entry != rule.Entry {
					t.Fatalf("policies disagree with a RoCE v2 IPv4 entry: score %d, pairwise %d (%v), rule %d: %+v",
						score.Entry.Index, pair.Entry.Index, perr, rule.Entry.Index, table)
				}
			}
			// 4. Adding an entry that scores lower never changes the pick.
			worse := table
			worse.Entries = append(append([]GIDEntry(nil), table.Entries...), GIDEntry{Device: "dev", Port: 1, Index: table.Slots, GID: gidOf("fe80::ffff"), Type: GIDTypeUnknown})
			worse.Slots++
			if s2, _ := SelectGID(worse, SelectOptions{IPv6: ipv6}); s2.Entry != score.Entry {
				t.Fatalf("a lower-scoring entry changed the pick from %d to %d", score.Entry.Index, s2.Entry.Index)
			}
			// 5. Both ends of a symmetric setup agree with themselves.
			if err := CheckCompatible(score.Entry, score.Entry); err != nil {
				t.Fatalf("a GID is incompatible with itself: %v", err)
			}
		}
	}
}
