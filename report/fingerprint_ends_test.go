package report

import (
	"strings"
	"testing"
)

func TestCompareEnds(t *testing.T) {
	a := EndVersions{Host: "local", Kernel: "6.1.0-41-amd64", Driver: "virtio_net", DriverVersion: "1.0.0",
		Tools: []Param{{"perftest", "4.5+0.17-1 (Version: 6.06)"}, {"rdma-core", "44.0-2"}}}
	b := EndVersions{Host: "ssh root@hostb", Kernel: "6.12.117+deb13-amd64", Driver: "virtio_net", DriverVersion: "1.0.0",
		Tools: []Param{{"perftest", "25.01.0+0.80-1 (Version: 6.24)"}, {"rdma-core", ""}}}
	fs := CompareEnds(a, b)
	if len(fs) != 1 || fs[0].Rule != RuleEndsDiffer || fs[0].Severity != SeverityWarning {
		t.Fatalf("CompareEnds = %+v, want one %s warning", fs, RuleEndsDiffer)
	}
	want := "local and ssh root@hostb differ: kernel 6.1.0-41-amd64 vs 6.12.117+deb13-amd64; perftest 4.5+0.17-1 (Version: 6.06) vs 25.01.0+0.80-1 (Version: 6.24)"
	if fs[0].Summary != want {
		t.Errorf("summary\n %s\nwant\n %s", fs[0].Summary, want)
	}
	if strings.Contains(fs[0].Summary, "rdma-core") {
		t.Errorf("an unread version counted as a difference: %s", fs[0].Summary)
	}
	if fs := CompareEnds(a, a); fs != nil {
		t.Errorf("same ends: %+v, want none", fs)
	}
}
