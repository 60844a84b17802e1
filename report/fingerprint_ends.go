package report

import (
	"fmt"
	"strings"
)

// RuleEndsDiffer is the finding of a round whose two ends run different
// kernels, tools, drivers or firmware: rdma_rxe behaves differently on
// 6.1 and 6.12, and perftest's sides exchange their version.
const RuleEndsDiffer = "ends_versions_differ"

// EndVersions are the versions one end of a round ran with, as a
// fingerprint records them (Fingerprint.Kernel, Tools, NICs).
type EndVersions struct {
	Host          string  // the side's name: "local", "ssh root@hostb"
	Kernel        string  // uname -r
	Driver        string  // the netdev's driver (ethtool -i)
	DriverVersion string  // its version
	Firmware      string  // its firmware-version
	Tools         []Param // "perftest"="25.01.0+0.80-1 (Version: 6.24)", "rdma-core"=...
}

// CompareEnds names what differs between two ends' versions, as one
// warning finding (RuleEndsDiffer), or none when they agree. A version
// one end could not read ("") is not a difference.
func CompareEnds(a, b EndVersions) []Finding {
	type field struct{ name, x, y string }
	fields := []field{{"kernel", a.Kernel, b.Kernel}, {"driver", a.Driver, b.Driver},
		{"driver version", a.DriverVersion, b.DriverVersion}, {"firmware", a.Firmware, b.Firmware}}
	for _, t := range a.Tools {
		if v, ok := lookup(b.Tools, t.Key); ok {
			fields = append(fields, field{t.Key, t.Value, v})
		}
	}
	var diffs []string
	for _, f := range fields {
		if f.x != "" && f.y != "" && f.x != f.y {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", f.name, f.x, f.y))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return []Finding{{Rule: RuleEndsDiffer, Severity: SeverityWarning,
		Summary: fmt.Sprintf("%s and %s differ: %s", a.Host, b.Host, strings.Join(diffs, "; ")),
		Action:  "run the same kernel, rdma-core, perftest, driver and firmware on both ends, or the round measures the mismatch too"}}
}
