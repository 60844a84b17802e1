package report

import (
	"bytes"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestWriteBenchfmtGolden(t *testing.T) {
	for _, r := range []Round{baselineRound(), candidateRound(), smallBase(), smallRound()} {
		var buf bytes.Buffer
		if err := WriteBenchfmt(&buf, r); err != nil {
			t.Fatal(err)
		}
		golden(t, "benchfmt/"+r.Name+".txt", buf.Bytes())
	}
}

// TestWriteBenchfmtReadBack reads the output with benchfmt.Reader, as
// benchstat does, and checks every value and the configuration.
func TestWriteBenchfmtReadBack(t *testing.T) {
	r := baselineRound()
	r.Params = append(r.Params, Param{"Odd Key:x", "a b"})
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, r); err != nil {
		t.Fatal(err)
	}
	rd := benchfmt.NewReader(&buf, "base.txt")
	got := map[string][]float64{}
	var cfg string
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			v := rec.Values[0]
			got[rec.Name.String()+" "+v.Unit] = append(got[rec.Name.String()+" "+v.Unit], v.Value)
			cfg = rec.GetConfig("odd_key_x") + "|" + rec.GetConfig("env.nic[eth1].mtu") + "|" + rec.GetConfig("round")
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		}
	}
	diff(t, map[string][]float64{
		"Rocekit/metric=bw_avg/size=65536 Gbit/s": bw1500,
		"Rocekit/metric=t_typical/size=2 us":      lat1500,
	}, got)
	diff(t, "a b|1500|mtu1500", cfg)
}
