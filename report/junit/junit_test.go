package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

func sample() Suites {
	return Suites{Name: "rocekit", Suites: []Suite{{
		Name: "fleet matrix", Hostname: "coordinator", Timestamp: time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC),
		Properties: []Property{{"mtu", "9000"}, {"test", "send_bw"}},
		Cases: []Case{
			{Name: "hosta→hostb", Class: "rocekit.fleet", Seconds: 12.5},
			{Name: "hosta→hostc", Class: "rocekit.fleet", Seconds: 12.25, Failure: &Failure{Type: "below-line-rate",
				Message: "41.2 of 90.0 Gbit/s (46 %)", Text: "bw_avg 41.2 Gbit/s <below> 90 % of 98.0\n\x1b[31mcolour\x1b[0m, invalid \xff byte"}},
			{Name: "hostb→hostc", Class: "rocekit.fleet", Error: &Failure{Type: "connect-failed", Message: "Couldn't connect to 198.18.0.3:18515"}},
			{Name: "hostc→hostd", Class: "rocekit.fleet", Skipped: "hostd is drained"},
		},
	}, {Name: "gate", Cases: []Case{{Name: "bw_avg within 5 % of the baseline", Output: "bw_avg 9.41 → 9.38 Gbit/s"}}}}}
}

func TestSchemaAndJunitparser(t *testing.T) {
	for name, d := range map[string]Suites{"empty": {}, "no cases": {Suites: []Suite{{Name: "x"}}}} {
		var b bytes.Buffer
		if err := Write(&b, d); err != nil {
			t.Fatal(err)
		}
		if got := labtest.CheckJUnit(t, b.Bytes()); len(got) != len(d.Suites) {
			t.Errorf("%s: read back %+v", name, got)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	got := labtest.CheckJUnit(t, b.Bytes())
	if len(got) != 2 || got[0].Tests != 4 || got[0].Failures != 1 || got[0].Errors != 1 || got[0].Skipped != 1 || got[1].Tests != 1 {
		t.Fatalf("read back %+v", got)
	}
	c := got[0].Cases[1]
	if c.Name != "hosta→hostc" || c.Classname != "rocekit.fleet" || c.Time != 12.25 ||
		len(c.Results) != 1 || c.Results[0] != "Failure" || c.Messages[0] != "41.2 of 90.0 Gbit/s (46 %)" {
		t.Errorf("failed case read back %+v", c)
	}
	if r := got[0].Cases[2].Results; len(r) != 1 || r[0] != "Error" {
		t.Errorf("error case %v", r)
	}
	if r := got[0].Cases[3].Results; len(r) != 1 || r[0] != "Skipped" {
		t.Errorf("skipped case %v", r)
	}
}

func TestWriteCleansAndCounts(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`<testsuites name="rocekit" tests="5" failures="1" errors="1" time="24.750">`,
		`tests="4" failures="1" errors="1" skipped="1" time="24.750" timestamp="2026-12-01T20:00:00" hostname="coordinator"`,
		"\uFFFD[31mcolour", "invalid \uFFFD byte", `<property name="mtu" value="9000"></property>`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.ContainsRune(s, 0x1b) {
		t.Error("an escape character reached the XML")
	}
	if !sample().Failed() || (Suites{Suites: []Suite{{Name: "ok", Cases: []Case{{Name: "a"}}}}}).Failed() {
		t.Error("Failed")
	}
	if err := Write(&b, Suites{Suites: []Suite{{Name: "x", Cases: []Case{{}}}}}); err == nil {
		t.Error("a nameless case written")
	}
	for in, want := range map[float64]string{-1: "0.000", 0: "0.000", 1.5: "1.500", 1e300: "0.000"} {
		if got := seconds(in); got != want {
			t.Errorf("seconds(%g) = %s", in, got)
		}
	}
}

func FuzzWrite(f *testing.F) {
	f.Add("name", "msg\x00\x1b", "text\xff", 1.5)
	f.Fuzz(func(t *testing.T, name, msg, text string, secs float64) {
		if name == "" {
			name = "n"
		}
		d := Suites{Suites: []Suite{{Name: name, Cases: []Case{{Name: name, Seconds: secs, Failure: &Failure{Message: msg, Text: text}}}}}}
		var b bytes.Buffer
		if err := Write(&b, d); err != nil {
			t.Fatal(err)
		}
		var back xmlSuites
		if err := xml.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatalf("written XML does not parse: %v\n%q", err, b.String())
		}
	})
}
