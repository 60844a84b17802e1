package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// smallBase and smallRound have only three repeats each: too few samples
// for the U test; smallRound also runs with another governor.
func smallBase() Round {
	return sampleRound("mtu1500-quick", "1500", bw1500[:3], lat1500[:3], sampleFingerprint(1500, 1024))
}

func smallRound() Round {
	r := sampleRound("mtu9000-quick", "9000", bw9000[:3], lat9000[:3], sampleFingerprint(9000, 4096))
	r.Fingerprint.Governor = "powersave"
	return r
}

func render(t *testing.T, f func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	base, cand, small := baselineRound(), candidateRound(), smallRound()
	sweep, err := FromPerftest("send_bw_a", t0, perftestFixture(t, "trixie", "send-bw-a", "client"))
	if err != nil {
		t.Fatal(err)
	}
	udp, err := FromNetperf("udp_a", t0, netperfFixture(t, "bookworm", "udp-stream-loss"), netperfFixture(t, "trixie", "udp-stream-loss"))
	if err != nil {
		t.Fatal(err)
	}
	udpB, err := FromNetperf("udp_b", t0, netperfFixture(t, "bookworm", "udp-stream"), netperfFixture(t, "trixie", "udp-stream"))
	if err != nil {
		t.Fatal(err)
	}
	cmpFull := Compare(base, cand, CompareOptions{})
	cmpSmall := Compare(smallBase(), small, CompareOptions{})
	for name, out := range map[string][]byte{
		"round.md":           render(t, func(b *bytes.Buffer) error { return WriteRoundMarkdown(b, cand) }),
		"round_sweep.md":     render(t, func(b *bytes.Buffer) error { return WriteRoundMarkdown(b, sweep) }),
		"compare.md":         render(t, func(b *bytes.Buffer) error { return WriteComparisonMarkdown(b, cmpFull) }),
		"compare_small.md":   render(t, func(b *bytes.Buffer) error { return WriteComparisonMarkdown(b, cmpSmall) }),
		"side_by_side.md":    render(t, func(b *bytes.Buffer) error { return WriteSideBySideMarkdown(b, []Round{udp, udpB}) }),
		"rounds.csv":         render(t, func(b *bytes.Buffer) error { return WriteRoundsCSV(b, []Round{base, udp}) }),
		"compare.csv":        render(t, func(b *bytes.Buffer) error { return WriteComparisonCSV(b, cmpSmall) }),
		"round.json":         render(t, func(b *bytes.Buffer) error { return WriteJSON(b, cand) }),
		"compare_small.json": render(t, func(b *bytes.Buffer) error { return WriteJSON(b, cmpSmall) }),
	} {
		t.Run(name, func(t *testing.T) { golden(t, name, out) })
	}
}

// TestRoundJSONRoundTrip checks that a round survives JSON unchanged.
func TestRoundJSONRoundTrip(t *testing.T) {
	want := candidateRound()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Round
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	diff(t, want, got)
}

func TestComparisonJSONNulls(t *testing.T) {
	c := Compare(smallBase(), smallRound(), CompareOptions{})
	var back struct {
		Metrics []struct {
			Candidate struct {
				Lo *float64 `json:"ci_lo"`
			} `json:"candidate"`
			Verdict     string `json:"verdict"`
			NeedSamples int    `json:"need_samples"`
		} `json:"metrics"`
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m := back.Metrics[0]
	if m.Candidate.Lo != nil || m.Verdict != "too few samples" || m.NeedSamples != 4 {
		t.Errorf("%+v", m)
	}
}

func TestWriteFindingsMarkdown(t *testing.T) {
	var b strings.Builder
	WriteFindingsMarkdown(&b, []Finding{{Rule: RuleJitter, Severity: SeverityWarning, Summary: "t_max 16× t_typical"}})
	if want := "- **warning** latency_jitter: t_max 16× t_typical\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
