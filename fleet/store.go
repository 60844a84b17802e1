package fleet

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
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
	MetricBW      = report.MetricBWAvg
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
	r.Warnings = append(r.Warnings, warnjson.Strings(c.Warnings)...)
	return r
}

// CellFromRound reads back a cell CellRound stored; ok is false for a
// round that is not one. The pair's indices are those of hosts (by name);
// a host not in hosts gives ok false.
func CellFromRound(r report.Round, hosts []string) (Cell, bool) {
	return newCellReader(hosts).cell(r)
}

// cellReader reads cells back with the hosts indexed by name, and the
// names and NICs of the cells taken from one copy each: a store of
// 500,000 cells names the same 1,000 hosts and a few NICs over and over.
type cellReader struct {
	hosts []string
	index map[string]int
	nics  map[string]string
}

func newCellReader(hosts []string) *cellReader {
	c := &cellReader{hosts: hosts, index: make(map[string]int, len(hosts)), nics: map[string]string{}}
	for i, h := range hosts {
		if _, dup := c.index[h]; !dup {
			c.index[h] = i
		}
	}
	return c
}

// nic returns the one copy of a NIC name (at most 1,000 are kept).
func (cr *cellReader) nic(s string) string {
	if v, ok := cr.nics[s]; ok {
		return v
	}
	if len(cr.nics) < 1000 {
		cr.nics[s] = s
	}
	return s
}

func (cr *cellReader) cell(r report.Round) (Cell, bool) {
	a, okA := r.Param(ParamHostA)
	b, okB := r.Param(ParamHostB)
	status, okS := r.Param(ParamStatus)
	if !okA || !okB || !okS {
		return Cell{}, false
	}
	ia, okA := cr.index[a]
	ib, okB := cr.index[b]
	if !okA || !okB || ia == ib {
		return Cell{}, false
	}
	c := Cell{A: cr.hosts[ia], B: cr.hosts[ib], Pair: Pair{ia, ib}.normal(), Start: r.Start,
		Elapsed: time.Duration(r.DurationSec * float64(time.Second)), Resumed: true}
	if v, ok := r.Param(ParamNICA); ok {
		c.ANIC = cr.nic(v)
	}
	if v, ok := r.Param(ParamNICB); ok {
		c.BNIC = cr.nic(v)
	}
	if lr, ok := r.Param(ParamLineRate); ok {
		c.LineRateGbps, _ = strconv.ParseFloat(lr, 64)
	}
	for _, w := range r.Warnings {
		if e, ok := strings.CutPrefix(w, errorPrefix); ok && c.Error == "" {
			c.Error = e
			continue
		}
		c.Warnings = append(c.Warnings, errors.New(w))
	}
	if m, ok := r.Metric(MetricBW); ok && status == "ok" && len(m.Values) > 0 {
		c.OK, c.BWGbps = true, m.Values[len(m.Values)-1]
	} else if status == "ok" {
		return Cell{}, false
	}
	return c, true
}

// resume returns the cells of store's rounds named name that succeeded,
// by pair: what a resumed run skips. The store is scanned, not loaded:
// only the cells are kept (issue 26: 500,000 cells in at most 5 s and
// 200 MB; BenchmarkResume500k). The last round of a pair wins.
func resume(store *report.Store, name string, hosts []string) (map[Pair]Cell, error) {
	out := map[Pair]Cell{}
	cr := newCellReader(hosts)
	_, err := store.Scan(func(r report.Round) error {
		cr.add(out, r, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// add puts r's cell in out when r is a good cell of the run named name.
func (cr *cellReader) add(out map[Pair]Cell, r report.Round, name string) {
	if name != "" && r.Name != name {
		return
	}
	if v, ok := r.Param(ParamStatus); !ok || v != "ok" {
		return
	}
	if c, ok := cr.cell(r); ok {
		out[c.Pair] = c
	}
}

// measured is resume over rounds already loaded.
func measured(rounds []report.Round, name string, hosts []string) map[Pair]Cell {
	out := map[Pair]Cell{}
	cr := newCellReader(hosts)
	for _, r := range rounds {
		cr.add(out, r, name)
	}
	return out
}
