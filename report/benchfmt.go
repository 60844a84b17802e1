package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// BenchmarkPrefix is the benchmark name rounds are written under,
// "BenchmarkRocekit", so that rounds with different names (one per
// condition) compare in benchstat
// (benchfmt writes the "Benchmark" before it).
const BenchmarkPrefix = "Rocekit"

// WriteBenchfmt writes r in the Go benchmark format, one result line per
// metric and repeat, so that the standard benchstat command compares
// rocekit rounds (one file per round, the baseline first):
//
//	round: mtu9000
//	mtu: 9000
//	BenchmarkRocekit/metric=bw_avg/size=65536 1 23.9 Gbit/s
//
// The round's name, parameters and fingerprint fields become configuration
// lines; keys and name parts are cleaned of blanks and colons, which the
// format forbids.
//
// Similar to: go test -bench . > new.txt; benchstat old.txt new.txt
func WriteBenchfmt(w io.Writer, r Round) error {
	cfg := []benchfmt.Config{{Key: "round", Value: []byte(cleanValue(r.Name)), File: true}}
	for _, p := range r.Params {
		cfg = append(cfg, benchfmt.Config{Key: cleanKey(p.Key), Value: []byte(cleanValue(p.Value)), File: true})
	}
	for _, p := range r.Fingerprint.Fields() {
		cfg = append(cfg, benchfmt.Config{Key: cleanKey("env." + p.Key), Value: []byte(cleanValue(p.Value)), File: true})
	}
	bw := benchfmt.NewWriter(w)
	for _, m := range r.Metrics {
		var name strings.Builder
		name.WriteString(BenchmarkPrefix + "/metric=" + cleanPart(m.Name))
		for _, l := range m.Labels {
			name.WriteString("/" + cleanPart(l.Key) + "=" + cleanPart(l.Value))
		}
		unit := cleanName(m.Unit)
		for _, v := range m.Values {
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(name.String()), Iters: 1,
				Values: []benchfmt.Value{{Value: v, Unit: unit}}}
			if err := bw.Write(res); err != nil {
				return fmt.Errorf("report: benchfmt %s: %w", r.Name, err)
			}
		}
	}
	return nil
}

// cleanKey makes a configuration key: starts with a lower-case letter, no
// blanks, colons or upper case.
func cleanKey(k string) string {
	k = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == ':' {
			return '_'
		}
		return unicode.ToLower(r)
	}, k)
	if k == "" || !unicode.IsLower([]rune(k)[0]) {
		k = "x" + k
	}
	return k
}

func cleanValue(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, v)
}

// cleanPart makes a name part: no blanks or slashes.
func cleanPart(s string) string {
	return cleanName(strings.ReplaceAll(s, "/", "_"))
}

// cleanName makes a unit or name: no blanks.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s)
	if s == "" {
		return "_"
	}
	return s
}
