// Package report records measurement rounds and judges them against a
// baseline: what the runbooks' "record MTU, cores, message size,
// throughput, loss, driver version for every round; change one parameter,
// rerun, compare" asks for, instead of a spreadsheet.
//
// A Round holds a test's ordered parameters, the environment Fingerprint,
// and metrics with an explicit unit, a better direction and one value per
// repeat. FromPerftest and FromNetperf build rounds from parsed tool
// output. A Store keeps rounds in an append-only JSON-lines file that
// survives a crash mid-append. Compare gives, per metric, the median, its
// 95% CI, the change and the Mann–Whitney U test's p-value (benchmath, as
// benchstat computes them) with a verdict — better, worse, no significant
// change, or too few samples and how many are needed — and names the
// fingerprint fields that differ from the baseline. Diagnose applies the
// runbooks' troubleshooting rules. The results render as Markdown, CSV,
// JSON, the Go benchmark format (for the benchstat command), SVG plots (in
// the subpackage report/plot, so that report does not link gonum/plot), and
// a tar.gz archive that reproduces a round.
//
//	base, _ := report.FromPerftest("mtu1500", start, runs1500...)
//	cand, _ := report.FromPerftest("mtu9000", start, runs9000...)
//	store := report.OpenStore("rounds.jsonl")
//	store.Append(base)
//	store.Append(cand)
//	c := report.Compare(base, cand, report.CompareOptions{})
//	report.WriteComparisonMarkdown(os.Stdout, c)
//
// To compare rounds with benchstat, write one file per round with
// WriteBenchfmt and run
//
//	benchstat -table '' mtu1500.txt mtu9000.txt
//
// (-table ” keeps rounds whose parameters differ in one table), or,
// without benchstat, print the same table from the rounds themselves:
//
//	report.WriteBenchstat(os.Stdout, report.CompareOptions{}, base, cand)
//	report.WriteBenchstatComparison(os.Stdout, c) // a comparison made already
package report
