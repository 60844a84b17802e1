package fleet

import (
	"errors"
	"slices"
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

// cellParams are the parameters a cell is stored under, found in one
// pass over the round's (the first of a key counts, as Round.Param finds).
type cellParams struct {
	a, b, status, anic, bnic, lineRate string
	has                                uint8 // bits, in the order above
}

func paramsOf(r *report.Round) (p cellParams) {
	for _, kv := range r.Params {
		var bit uint8
		var dst *string
		switch kv.Key {
		case ParamHostA:
			bit, dst = 1, &p.a
		case ParamHostB:
			bit, dst = 2, &p.b
		case ParamStatus:
			bit, dst = 4, &p.status
		case ParamNICA:
			bit, dst = 8, &p.anic
		case ParamNICB:
			bit, dst = 16, &p.bnic
		case ParamLineRate:
			bit, dst = 32, &p.lineRate
		default:
			continue
		}
		if p.has&bit == 0 {
			p.has |= bit
			*dst = kv.Value
		}
	}
	return p
}

func (cr *cellReader) cell(r report.Round) (Cell, bool) {
	return cr.cellOf(&r, paramsOf(&r))
}

func (cr *cellReader) cellOf(r *report.Round, p cellParams) (Cell, bool) {
	if p.has&7 != 7 {
		return Cell{}, false
	}
	ia, okA := cr.index[p.a]
	ib, okB := cr.index[p.b]
	if !okA || !okB || ia == ib {
		return Cell{}, false
	}
	c := Cell{A: cr.hosts[ia], B: cr.hosts[ib], Pair: Pair{ia, ib}.normal(), Start: r.Start,
		Elapsed: time.Duration(r.DurationSec * float64(time.Second)), Resumed: true}
	if p.has&8 != 0 {
		c.ANIC = cr.nic(p.anic)
	}
	if p.has&16 != 0 {
		c.BNIC = cr.nic(p.bnic)
	}
	if p.has&32 != 0 {
		c.LineRateGbps, _ = strconv.ParseFloat(p.lineRate, 64)
	}
	for _, w := range r.Warnings {
		if e, ok := strings.CutPrefix(w, errorPrefix); ok && c.Error == "" {
			c.Error = e
			continue
		}
		c.Warnings = append(c.Warnings, errors.New(w))
	}
	// r.Metric(MetricBW), without building each metric's key.
	i := slices.IndexFunc(r.Metrics, func(m report.Metric) bool { return m.Name == MetricBW && len(m.Labels) == 0 })
	if i >= 0 && p.status == "ok" && len(r.Metrics[i].Values) > 0 {
		c.OK, c.BWGbps = true, r.Metrics[i].Values[len(r.Metrics[i].Values)-1]
	} else if p.status == "ok" {
		return Cell{}, false
	}
	return c, true
}

// resume returns the cells of store's rounds named name that succeeded,
// by pair: what a resumed run skips. The store is scanned, not loaded,
// and the cells are kept compact (issue 26: 500,000 cells in at most 5 s
// and 200 MB; BenchmarkResume500k). The last round of a pair wins.
func resume(store *report.Store, name string, hosts []string) (*resumed, error) {
	out := newResumed(hosts)
	cr := newCellReader(hosts)
	_, err := store.Scan(func(r report.Round) error {
		if c, ok := cr.good(r, name); ok {
			out.put(c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resumed holds the cells a run resumes in 56 bytes each and an index
// entry (500,000 cells: 49 MB instead of 130 MB for a map of Cells): the
// hosts by number, the NIC names once each, the rare error and warnings
// apart.
type resumed struct {
	hosts  []string
	index  map[uint64]uint32 // pairKey → number of the cell
	chunks [][]storedCell    // chunks of storedChunk cells, never copied
	n      int               // cells held
	strs   []string          // NIC names, by number
	strNo  map[string]uint32 // NIC name → number
	extras []cellExtra       // errors and warnings, by number
	zones  []*time.Location  // the cells' locations, UTC first
}

// storedCell is a good cell without what resumed holds once. It holds no
// pointer, so that the collector need not scan half a million of them.
type storedCell struct {
	sec          int64  // Start, as Unix seconds and nanoseconds
	nsec         int32  //
	zone         uint16 // Start's location: a number in resumed.zones
	elapsed      time.Duration
	bw, lineRate float64
	anic, bnic   uint32 // numbers in resumed.strs
	extra        uint32 // 1 + the number in resumed.extras; 0 when none
	swapped      bool   // A is the pair's higher host number
}

// cellExtra is what few good cells have.
type cellExtra struct {
	err      string
	warnings warnjson.Errors
}

// storedChunk is the number of cells allocated at a time: growing one
// slice would copy the cells and leave the old copies to the collector.
const storedChunk = 4096

func newResumed(hosts []string) *resumed {
	return &resumed{hosts: hosts, index: map[uint64]uint32{}, strNo: map[string]uint32{}, zones: []*time.Location{time.UTC}}
}

func pairKey(p Pair) uint64 { return uint64(p.A)<<32 | uint64(uint32(p.B)) }

// Len returns the number of cells held.
func (d *resumed) Len() int {
	if d == nil {
		return 0
	}
	return d.n
}

// has tells whether the pair (normalized) has a cell.
func (d *resumed) has(p Pair) bool {
	if d == nil {
		return false
	}
	_, ok := d.index[pairKey(p)]
	return ok
}

// cell returns the pair's (normalized) cell.
func (d *resumed) cell(p Pair) (Cell, bool) {
	if d == nil {
		return Cell{}, false
	}
	i, ok := d.index[pairKey(p)]
	if !ok {
		return Cell{}, false
	}
	s := &d.chunks[i/storedChunk][i%storedChunk]
	c := Cell{Pair: p, A: d.hosts[p.A], B: d.hosts[p.B], ANIC: d.strs[s.anic], BNIC: d.strs[s.bnic], OK: true,
		BWGbps: s.bw, LineRateGbps: s.lineRate, Start: time.Unix(s.sec, int64(s.nsec)).In(d.zones[s.zone]),
		Elapsed: s.elapsed, Resumed: true}
	if s.swapped {
		c.A, c.B = c.B, c.A
	}
	if s.extra > 0 {
		e := d.extras[s.extra-1]
		c.Error, c.Warnings = e.err, e.warnings
	}
	return c, true
}

// put keeps c, a good cell of hosts, in place of the pair's earlier one.
func (d *resumed) put(c Cell) {
	s := storedCell{sec: c.Start.Unix(), nsec: int32(c.Start.Nanosecond()), zone: d.zone(c.Start), elapsed: c.Elapsed, bw: c.BWGbps, lineRate: c.LineRateGbps,
		anic: d.str(c.ANIC), bnic: d.str(c.BNIC), swapped: c.A != d.hosts[c.Pair.A]}
	if c.Error != "" || len(c.Warnings) > 0 {
		d.extras = append(d.extras, cellExtra{c.Error, c.Warnings})
		s.extra = uint32(len(d.extras))
	}
	k := pairKey(c.Pair)
	if i, ok := d.index[k]; ok {
		d.chunks[i/storedChunk][i%storedChunk] = s
		return
	}
	if d.n%storedChunk == 0 {
		d.chunks = append(d.chunks, make([]storedCell, 0, storedChunk))
	}
	last := &d.chunks[len(d.chunks)-1]
	*last = append(*last, s)
	d.index[k] = uint32(d.n)
	d.n++
}

// zone returns the number of t's location. The locations of a stored
// offset (+02:00) are one per round: those of the same name and offset
// are taken as one (they are alike but for the pointer).
func (d *resumed) zone(t time.Time) uint16 {
	loc := t.Location()
	for i, z := range d.zones {
		if z == loc {
			return uint16(i)
		}
	}
	name, off := t.Zone()
	for i, z := range d.zones {
		if loc != time.Local && z != time.Local && z != time.UTC {
			if n, o := t.In(z).Zone(); n == name && o == off && z.String() == loc.String() {
				return uint16(i)
			}
		}
	}
	if len(d.zones) == 1<<16 {
		return 0 // a store of 65,536 time zones: the rest read back in UTC
	}
	d.zones = append(d.zones, loc)
	return uint16(len(d.zones) - 1)
}

// str returns the number of a NIC name.
func (d *resumed) str(s string) uint32 {
	if n, ok := d.strNo[s]; ok {
		return n
	}
	n := uint32(len(d.strs))
	d.strs = append(d.strs, s)
	d.strNo[s] = n
	return n
}

// good returns r's cell when r is a good cell of the run named name.
func (cr *cellReader) good(r report.Round, name string) (Cell, bool) {
	if name != "" && r.Name != name {
		return Cell{}, false
	}
	p := paramsOf(&r)
	if p.has&4 == 0 || p.status != "ok" {
		return Cell{}, false
	}
	return cr.cellOf(&r, p)
}

// measured is resume over rounds already loaded.
func measured(rounds []report.Round, name string, hosts []string) map[Pair]Cell {
	out := map[Pair]Cell{}
	cr := newCellReader(hosts)
	for _, r := range rounds {
		if c, ok := cr.good(r, name); ok {
			out[c.Pair] = c
		}
	}
	return out
}
