package report

import (
	"strings"
	"testing"
)

func TestFindingsGroupedByCause(t *testing.T) {
	clamp := func(where string) Finding {
		return Finding{Rule: RuleBufferClamped, Severity: SeverityWarning, Summary: "receive socket buffer clamped on " + where}
	}
	fs := []Finding{clamp("near, A"), {Rule: RuleJitter, Severity: SeverityWarning, Summary: "t_max 9 × t_typical"},
		clamp("far, A"), {Rule: RuleBufferClamped, Severity: SeverityInfo, Summary: "info clamp"}, clamp("far, S")}
	gs := GroupFindings(fs)
	if len(gs) != 3 || gs[0].Count() != 3 || gs[1].Count() != 1 || gs[2].Finding.Severity != SeverityInfo {
		t.Fatalf("groups: %+v", gs)
	}
	var b strings.Builder
	if err := WriteFindingsMarkdown(&b, fs); err != nil {
		t.Fatal(err)
	}
	want := "- **warning** socket_buffer_clamped (3 times): receive socket buffer clamped on near, A\n" +
		"  - receive socket buffer clamped on far, A\n  - receive socket buffer clamped on far, S\n" +
		"- **warning** latency_jitter: t_max 9 × t_typical\n- **info** socket_buffer_clamped: info clamp\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}
