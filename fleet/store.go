package fleet

import (
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/report"
)

// Round parameters and metrics under which a fleet cell is stored.
const (
	ParamHostA    = "fleet_a"
	ParamHostB    = "fleet_b"
	ParamNICA     = "fleet_a_nic"
	ParamNICB     = "fleet_b_nic"
	ParamStatus   = "fleet_status" // "ok" or "failed"
	ParamLineRate = "line_rate_gbps"
	MetricBW      = "bw_avg"
	errorPrefix   = "error: "
)

// CellRound turns a cell into a report round named name (the fleet run's
// name), so that it can be kept in a report.Store: the hosts and NICs and
// the status as parameters, the bandwidth as the bw_avg metric (none for a
// failed pair, whose error is kept as a warning "error: ...").
func CellRound(name string, c Cell) report.Round {
	r := report.Round{Name: name, Start: c.Start, DurationSec: c.Elapsed.Seconds()}
	r.SetParam(ParamHostA, c.A)
	r.SetParam(ParamHostB, c.B)
	r.SetParam(ParamNICA, c.ANIC)
	r.SetParam(ParamNICB, c.BNIC)
	if c.LineRateGbps > 0 {
		r.SetParam(ParamLineRate, strconv.FormatFloat(c.LineRateGbps, 'g', -1, 64))
	}
	if c.OK {
		r.SetParam(ParamStatus, "ok")
		r.Metrics = []report.Metric{{Name: MetricBW, Unit: report.UnitGbps, Better: report.HigherIsBetter, Values: []float64{c.BWGbps}}}
	} else {
		r.SetParam(ParamStatus, "failed")
		r.Warnings = append(r.Warnings, errorPrefix+c.Error)
	}
	r.Warnings = append(r.Warnings, c.Warnings...)
	return r
}

// CellFromRound reads back a cell CellRound stored; ok is false for a
// round that is not one. The pair's indices are those of hosts (by name);
// a host not in hosts gives ok false.
func CellFromRound(r report.Round, hosts []string) (Cell, bool) {
	a, okA := r.Param(ParamHostA)
	b, okB := r.Param(ParamHostB)
	status, okS := r.Param(ParamStatus)
	if !okA || !okB || !okS {
		return Cell{}, false
	}
	ia, ib := indexOf(hosts, a), indexOf(hosts, b)
	if ia < 0 || ib < 0 || ia == ib {
		return Cell{}, false
	}
	c := Cell{A: a, B: b, Pair: Pair{ia, ib}.normal(), Start: r.Start,
		Elapsed: time.Duration(r.DurationSec * float64(time.Second)), Resumed: true}
	c.ANIC, _ = r.Param(ParamNICA)
	c.BNIC, _ = r.Param(ParamNICB)
	if lr, ok := r.Param(ParamLineRate); ok {
		c.LineRateGbps, _ = strconv.ParseFloat(lr, 64)
	}
	for _, w := range r.Warnings {
		if e, ok := strings.CutPrefix(w, errorPrefix); ok && c.Error == "" {
			c.Error = e
			continue
		}
		c.Warnings = append(c.Warnings, w)
	}
	if m, ok := r.Metric(MetricBW); ok && status == "ok" && len(m.Values) > 0 {
		c.OK, c.BWGbps = true, m.Values[len(m.Values)-1]
	} else if status == "ok" {
		return Cell{}, false
	}
	return c, true
}

func indexOf(hosts []string, name string) int {
	for i, h := range hosts {
		if h == name {
			return i
		}
	}
	return -1
}

// resume returns the cells of store's rounds named name that succeeded,
// by pair: what a resumed run skips.
func resume(store *report.Store, name string, hosts []string) (map[Pair]Cell, error) {
	rounds, _, err := store.Load()
	if err != nil {
		return nil, err
	}
	return measured(rounds, name, hosts), nil
}

// measured returns the cells of the store's rounds named name that
// succeeded, by pair: what a resumed run skips. The last round of a pair
// wins.
func measured(rounds []report.Round, name string, hosts []string) map[Pair]Cell {
	out := map[Pair]Cell{}
	for _, r := range report.Select(rounds, name, report.Param{Key: ParamStatus, Value: "ok"}) {
		if c, ok := CellFromRound(r, hosts); ok {
			out[c.Pair] = c
		}
	}
	return out
}
