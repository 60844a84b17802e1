package fleet

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// Cell is one measured pair of a fleet matrix.
type Cell struct {
	Pair Pair `json:"pair"`
	// A and B are the hosts' names (A ran the server), ANIC and BNIC the
	// netdevs used.
	A    string `json:"a"`
	B    string `json:"b"`
	ANIC string `json:"a_nic,omitempty"`
	BNIC string `json:"b_nic,omitempty"`
	// OK is set when the pair gave a bandwidth.
	OK bool `json:"ok"`
	// BWGbps is the pair's bandwidth in 10^9 bit/s (0 when not OK).
	BWGbps float64 `json:"bw_gbps"`
	// LineRateGbps is the slower of the two NICs' line rates; 0 unknown.
	LineRateGbps float64 `json:"line_rate_gbps,omitempty"`
	// Error says why the pair failed ("" when OK).
	Error string `json:"error,omitempty"`
	// Err is the error itself, for errors.As (not kept in stores).
	Err error `json:"-"`
	// Elapsed is the pair's wall time; Start when it began.
	Start   time.Time     `json:"start"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Resumed is set for a cell read back from the store, not measured
	// in this run.
	Resumed bool `json:"resumed,omitempty"`
	// Warnings are the parsers' caveats and the void attempts: errors in
	// Go (errors.As reaches a perftest.Warning), strings in JSON.
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// Matrix is a fleet run's result: the hosts and one cell per scheduled
// pair, in schedule order.
type Matrix struct {
	Name  string   `json:"name"`
	Hosts []string `json:"hosts"`
	Cells []Cell   `json:"cells"`
	// Unmeasured are the scheduled pairs with no cell (the run was
	// cancelled before them).
	Unmeasured []Pair `json:"unmeasured,omitempty"`
}

// cellAt answers as Cell does through an index of the cells, for a
// caller that asks for every pair.
func (m *Matrix) cellAt() func(a, b int) (Cell, bool) {
	idx := make(map[Pair]int, len(m.Cells))
	for i, c := range m.Cells {
		idx[c.Pair] = i
	}
	return func(a, b int) (Cell, bool) {
		ci, ok := idx[Pair{a, b}.normal()]
		if !ok {
			return Cell{}, false
		}
		return m.Cells[ci], true
	}
}

// Cell returns the cell of hosts a and b, in either order.
func (m *Matrix) Cell(a, b int) (Cell, bool) {
	p := Pair{a, b}.normal()
	for _, c := range m.Cells {
		if c.Pair == p {
			return c, true
		}
	}
	return Cell{}, false
}

// WriteJSON writes the matrix as indented JSON.
func (m *Matrix) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(m)
}

// WriteCSV writes one line per cell: a,b,a_nic,b_nic,ok,bw_gbps,
// line_rate_gbps,elapsed_s,resumed,error.
//
// Similar to: the CSV a spreadsheet of ib_write_bw results would hold
func (m *Matrix) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"a", "b", "a_nic", "b_nic", "ok", "bw_gbps", "line_rate_gbps", "elapsed_s", "resumed", "error"})
	for _, c := range m.Cells {
		cw.Write([]string{c.A, c.B, c.ANIC, c.BNIC, strconv.FormatBool(c.OK),
			strconv.FormatFloat(c.BWGbps, 'g', 6, 64), strconv.FormatFloat(c.LineRateGbps, 'g', 6, 64),
			strconv.FormatFloat(c.Elapsed.Seconds(), 'f', 1, 64), strconv.FormatBool(c.Resumed), c.Error})
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the matrix as a host × host table of bandwidths in
// Gbit/s (the same value in both halves; "—" on the diagonal, "fail" for
// a failed pair, "" for a pair not scheduled, "?" for one not measured),
// then the failed pairs with their errors.
//
// Similar to: the matrix k8s-netperf and ngc_multinode_perf print
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| |")
	for _, h := range m.Hosts {
		b.WriteString(" " + mdEscape(h) + " |")
	}
	b.WriteString("\n|---|")
	for range m.Hosts {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	unmeasured := map[Pair]bool{}
	for _, p := range m.Unmeasured {
		unmeasured[p.normal()] = true
	}
	at := m.cellAt()
	for i, h := range m.Hosts {
		b.WriteString("| **" + mdEscape(h) + "** |")
		for j := range m.Hosts {
			cell := ""
			c, ok := at(i, j)
			switch {
			case i == j:
				cell = "—"
			case ok && c.OK:
				cell = formatGbps(c.BWGbps)
			case ok:
				cell = "fail"
			case unmeasured[Pair{i, j}.normal()]:
				cell = "?"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	for _, c := range m.Cells {
		if !c.OK {
			fmt.Fprintf(&b, "\n- %s–%s failed: %s", mdEscape(c.A), mdEscape(c.B), mdEscape(c.Error))
		}
	}
	if len(m.Unmeasured) > 0 {
		fmt.Fprintf(&b, "\n- %d pairs not measured (the run ended before them)", len(m.Unmeasured))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// formatGbps prints a bandwidth with three significant digits.
func formatGbps(v float64) string {
	if v == 0 || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
