package fleet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/report/junit"
)

// A four-host matrix with h1 slow on every link, h2–h3 failed and one
// pair cut off by the run's end: the JUnit file validates and junitparser
// reads each verdict back.
func TestGateJUnit(t *testing.T) {
	m := synthetic(4, func(a, b int) float64 {
		switch {
		case a == 2 && b == 3:
			return -1
		case a == 1 || b == 1:
			return 30
		}
		return 95
	})
	var cells []Cell
	for _, c := range m.Cells {
		c.Elapsed = 1500 * time.Millisecond
		switch c.A + "–" + c.B {
		case "h0–h1":
			c.LineRateGbps = 0 // not gated
		case "h0–h3":
			m.Unmeasured = append(m.Unmeasured, c.Pair)
			continue
		}
		cells = append(cells, c)
	}
	m.Cells = cells
	g := LineRateGate{}
	outliers := Outliers(m, 0)
	if len(outliers) == 0 {
		t.Fatal("no outliers to report")
	}
	s := g.JUnit(m, outliers)
	var b bytes.Buffer
	if err := junit.Write(&b, junit.Suites{Name: "rocekit", Suites: []junit.Suite{s}}); err != nil {
		t.Fatal(err)
	}
	got := labtest.CheckJUnit(t, b.Bytes())
	if len(got) != 1 {
		t.Fatalf("suites %+v", got)
	}
	results := map[string]string{}
	for _, c := range got[0].Cases {
		r := "pass"
		if len(c.Results) > 0 {
			r = c.Results[0] + ": " + c.Messages[0]
		}
		results[c.Name] = r
	}
	for name, want := range map[string]string{
		"h0–h1": "pass", // 30 Gbit/s, but no line rate to gate on
		"h0–h2": "pass",
		"h1–h2": "Failure: h1–h2: 30 of 100 Gbit/s (30%)",
		"h2–h3": "Error: connect failed",
		"h0–h3": "Skipped: not measured: the run ended first",
	} {
		if !strings.HasPrefix(results[name], want) {
			t.Errorf("%s: %q, want %q", name, results[name], want)
		}
	}
	for _, o := range outliers {
		name := "outlier: link " + strings.Join(o.Names, ", ")
		if o.Blame == BlameHost {
			name = "outlier: host " + o.Host
		}
		if results[name] != "Failure: "+o.String() {
			t.Errorf("%s: %q", name, results[name])
		}
	}
	// 5 pairs (2 below line rate), 1 unmeasured, the outliers.
	if got[0].Tests != 6+len(outliers) || got[0].Errors != 1 || got[0].Skipped != 1 || got[0].Failures != 2+len(outliers) {
		t.Errorf("counts %+v", got[0])
	}
}
