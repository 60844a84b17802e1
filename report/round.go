package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rocekit/rocekit/bottleneck"
	"github.com/rocekit/rocekit/perftest"
)

// Better says which direction of a metric is an improvement.
type Better int

// The directions. A metric whose direction is unknown is compared (median,
// CI, p-value) but never judged better or worse.
const (
	BetterUnknown Better = iota
	HigherIsBetter
	LowerIsBetter
)

// String returns "higher", "lower" or "unknown".
func (b Better) String() string {
	switch b {
	case HigherIsBetter:
		return "higher"
	case LowerIsBetter:
		return "lower"
	}
	return "unknown"
}

// MarshalText returns String, so the direction encodes as a JSON string.
func (b Better) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads "higher", "lower" or "unknown".
func (b *Better) UnmarshalText(t []byte) error {
	switch string(t) {
	case "higher":
		*b = HigherIsBetter
	case "lower":
		*b = LowerIsBetter
	case "unknown", "":
		*b = BetterUnknown
	default:
		return fmt.Errorf("%w: better direction %q", ErrInvalidRound, t)
	}
	return nil
}

// Param is one key=value pair: a round's parameter ("mtu"="9000"), a
// metric's label ("size"="65536") or a fingerprint field.
type Param struct {
	Key   string `json:"key"`   // "mtu"
	Value string `json:"value"` // "9000"
}

// Units of the metrics the conversions produce. They hold no blanks, so
// they can be Go benchmark units as they are.
const (
	UnitGbps      = "Gbit/s"  // 10^9 bit/s
	UnitMbps      = "Mbit/s"  // 10^6 bit/s
	UnitMpps      = "Mpps"    // 10^6 messages/s
	UnitMicros    = "us"      // microseconds
	UnitPerSec    = "trans/s" // transactions per second
	UnitRatio     = "ratio"   // 0–1
	UnitMessages  = "msgs"    // a count of messages
	UnitPercent   = "%"       // 0–100
	UnitBytes     = "bytes"   // a size in bytes
	UnitUnknownBW = "unknown" // perftest --output=bandwidth without the unit
)

// Metric is one measured quantity of a round, with a value per repeat.
type Metric struct {
	// Name is what is measured: "bw_avg", "t_typical", "throughput".
	Name string `json:"name"`
	// Labels tell metrics of the same name apart within a round, in
	// order: the message size of a -a sweep ("size"="65536").
	Labels []Param `json:"labels,omitempty"`
	// Unit is explicit, one of the Unit constants or another
	// blank-free unit.
	Unit   string `json:"unit"`
	Better Better `json:"better"` // which direction is an improvement
	// Values holds one value per repeat, in run order; all finite.
	Values []float64 `json:"values"`
}

// Key identifies a metric within a round: its name and labels,
// "bw_avg/size=65536".
func (m Metric) Key() string {
	var b strings.Builder
	b.WriteString(m.Name)
	for _, l := range m.Labels {
		b.WriteString("/" + l.Key + "=" + l.Value)
	}
	return b.String()
}

// Label returns the value of a label and whether it is set.
func (m Metric) Label(key string) (string, bool) { return lookup(m.Labels, key) }

// Output is a reference to a raw tool output kept beside the round (in
// the reproducibility archive or on disk).
type Output struct {
	Repeat int    `json:"repeat"` // 0-based repeat the output belongs to
	Role   string `json:"role"`   // "client", "server"
	Stream string `json:"stream"` // "stdout", "stderr", a file name
	Path   string `json:"path"`   // where it is kept, relative to the archive
}

// Round is one measurement: a set of parameters run once or repeatedly in
// one environment, and what came out.
type Round struct {
	Name        string    `json:"name"`         // what is measured: "send_bw_mtu9000"
	Start       time.Time `json:"start"`        // when the first repeat started
	DurationSec float64   `json:"duration_sec"` // wall time of all repeats, seconds
	// ToolSec is the part of DurationSec the tools themselves ran
	// (perftest pairs, netperf runs): the rest is rocekit's own work
	// between them (counters, readiness, SSH). 0 when not recorded.
	ToolSec     float64      `json:"tool_sec,omitempty"`
	Params      []Param      `json:"params,omitempty"`      // ordered: test, device, qps, mtu, ...
	Fingerprint *Fingerprint `json:"fingerprint,omitempty"` // the environment; nil when not taken
	Metrics     []Metric     `json:"metrics"`               // what came out
	Warnings    []string     `json:"warnings,omitempty"`    // the parsers' and the conversion's caveats
	Outputs     []Output     `json:"outputs,omitempty"`     // the raw outputs behind the metrics
	// Bottleneck is what held the round back (Bottleneck), stored with
	// it so that reports and pages read it instead of working it out
	// again.
	Bottleneck *bottleneck.Verdict `json:"bottleneck,omitempty"`
	// Findings are what the round's checks concluded (Diagnose, the
	// runs' counters, the workflow's own rules), stored with it so that
	// the page and the demo read them back instead of recomputing or
	// scraping them.
	Findings []Finding `json:"findings,omitempty"`

	// SelfCPUSec is rocekit's own CPU time on each host (by side name)
	// while the tools ran, in seconds (runbook.Pairs.SelfCPUSec): over
	// ToolSec it is the share of one core the measurer took from the host
	// it measures (goal: at most 1 %). nil when not recorded.
	SelfCPUSec map[string]float64 `json:"self_cpu_sec,omitempty"`

	// Perftest are the options of a perftest round, both ends, as data
	// (FromPerftest); nil for other rounds and for those stored before
	// they were recorded, whose PerftestOptions reads their command lines.
	Perftest *perftest.Options `json:"perftest,omitempty"`
}

// Efficiency returns ToolSec over DurationSec (0.93: the tools ran 93 % of
// the round's wall time); false when either is not recorded.
func (r *Round) Efficiency() (float64, bool) {
	if r.ToolSec <= 0 || r.DurationSec <= 0 {
		return 0, false
	}
	return r.ToolSec / r.DurationSec, true
}

// Param returns the value of a parameter and whether it is set.
func (r *Round) Param(key string) (string, bool) { return lookup(r.Params, key) }

// SetParam sets a parameter, keeping the order in which keys were first set.
func (r *Round) SetParam(key, value string) {
	for i := range r.Params {
		if r.Params[i].Key == key {
			r.Params[i].Value = value
			return
		}
	}
	r.Params = append(r.Params, Param{key, value})
}

// Metric returns the metric with the given key (see Metric.Key).
func (r *Round) Metric(key string) (Metric, bool) {
	for _, m := range r.Metrics {
		if m.Key() == key {
			return m, true
		}
	}
	return Metric{}, false
}

// Validate reports whether the round can be stored: it has a name, every
// metric has a name, a unit, a unique key and only finite values. The
// error wraps ErrInvalidRound.
func (r *Round) Validate() error {
	if r.Name == "" {
		return fmt.Errorf("%w: no name", ErrInvalidRound)
	}
	if math.IsNaN(r.DurationSec) || math.IsInf(r.DurationSec, 0) || r.DurationSec < 0 {
		return fmt.Errorf("%w: duration %v", ErrInvalidRound, r.DurationSec)
	}
	seen := map[string]bool{}
	for _, m := range r.Metrics {
		k := m.Key()
		switch {
		case m.Name == "":
			return fmt.Errorf("%w: metric without name", ErrInvalidRound)
		case m.Unit == "" || strings.ContainsAny(m.Unit, " \t\n"):
			return fmt.Errorf("%w: metric %s: unit %q", ErrInvalidRound, k, m.Unit)
		case seen[k]:
			return fmt.Errorf("%w: metric %s twice", ErrInvalidRound, k)
		}
		seen[k] = true
		for _, v := range m.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: metric %s: value %v", ErrInvalidRound, k, v)
			}
		}
	}
	return nil
}

// MarshalJSON encodes the round; it fails for a round that does not
// Validate, so that a store never holds one.
func (r Round) MarshalJSON() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	type plain Round
	return json.Marshal(plain(r))
}

// metricSet accumulates values per metric key in first-seen order.
// noteFunc adds a round warning about one repeat.
type noteFunc func(format string, args ...any)

// readRepeats is what FromPerftest and FromNetperf do with each repeat of
// runs: a nil one is noted "no result"; otherwise its parser warnings are
// noted, then read adds its values and returns how many non-finite ones
// it left out, which is noted too. A note is a round warning "repeat N:
// ...", N counted from 1 as the progress counts runs.
func readRepeats[R any](r *Round, runs []*R, warnings func(*R) []error, read func(res *R, note noteFunc) (dropped int)) {
	for i, res := range runs {
		note := func(format string, args ...any) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("repeat %d: %s", i+1, fmt.Sprintf(format, args...)))
		}
		if res == nil {
			note("no result")
			continue
		}
		for _, w := range warnings(res) {
			note("%s", w)
		}
		if n := read(res, note); n > 0 {
			note("%d non-finite values left out", n)
		}
	}
}

type metricSet struct {
	ms  []Metric
	idx map[string]int
}

func (s *metricSet) add(name string, labels []Param, unit string, better Better, v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	m := Metric{Name: name, Labels: labels, Unit: unit, Better: better}
	k := m.Key()
	if s.idx == nil {
		s.idx = map[string]int{}
	}
	i, ok := s.idx[k]
	if !ok {
		i = len(s.ms)
		s.idx[k] = i
		s.ms = append(s.ms, m)
	}
	s.ms[i].Values = append(s.ms[i].Values, v)
	return true
}

func lookup(ps []Param, key string) (string, bool) {
	i := slices.IndexFunc(ps, func(p Param) bool { return p.Key == key })
	if i < 0 {
		return "", false
	}
	return ps[i].Value, true
}
