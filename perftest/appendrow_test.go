package perftest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// marshalRowReflect is MarshalRow as it was before AppendRow: the row's
// JSON form encoded by encoding/json. AppendRow must write the same bytes.
func marshalRowReflect(row Row) ([]byte, error) {
	switch r := row.(type) {
	case BWRow:
		return json.Marshal(bwRowsJSON([]BWRow{r})[0])
	case LatRow:
		return json.Marshal(latRowJSON(r))
	}
	return nil, nil
}

// realRows returns the rows of every real text output the repository
// holds: this package's testdata, testdata/realworld and the captures.
func realRows(t *testing.T) []Row {
	t.Helper()
	var files []string
	for _, g := range []string{"testdata/*.txt", "../testdata/realworld/perftest/*/*", "../rocekittest/captures/*/perftest/*/*.stdout"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	var rows []Row
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		res, _ := Parse(bytes.NewReader(data))
		for _, r := range res.BW {
			rows = append(rows, r)
		}
		for _, r := range res.Lat {
			rows = append(rows, r)
		}
		if res.ReportBoth != nil {
			for _, r := range res.ReportBoth.Local {
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// TestAppendRowMatchesJSON: for every row of the real outputs AppendRow
// writes the bytes encoding/json wrote for MarshalRow.
func TestAppendRowMatchesJSON(t *testing.T) {
	rows := realRows(t)
	if len(rows) < 200 {
		t.Fatalf("only %d real rows", len(rows))
	}
	var buf []byte
	kinds := map[string]int{}
	for _, r := range rows {
		want, _ := marshalRowReflect(r)
		var err error
		buf, err = AppendRow(buf[:0], r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want) {
			t.Errorf("row %+v:\n got %s\nwant %s", r, buf, want)
		}
		switch r := r.(type) {
		case BWRow:
			kinds["bw"]++
			if r.HasCPUUtil {
				kinds["cpu"]++
			}
			if !r.PeakMeasured {
				kinds["nopeak"]++
			}
		case LatRow:
			kinds["lat"]++
			if r.Duration {
				kinds["duration"]++
			}
			if !allFinite([]float64{r.TMaxMicros, r.P999Micros, r.TStdevMicros, r.TPS}) {
				kinds["nonfinite"]++
			}
		}
	}
	for _, k := range []string{"bw", "cpu", "nopeak", "lat", "duration", "nonfinite"} {
		if kinds[k] == 0 {
			t.Errorf("no real row of kind %s checked (%v)", k, kinds)
		}
	}
}

// TestAppendRowNumbers: the numbers where encoding/json changes form
// (exponents, negative zero, the largest values) and the ones it writes
// as null.
func TestAppendRowNumbers(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.2345e22,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 97.63, 0.1 + 0.2, math.Inf(1), math.Inf(-1), math.NaN()} {
		r := LatRow{Bytes: 2, Iterations: 1000, TMinMicros: v, TMaxMicros: v, TTypicalMicros: v, TAvgMicros: v,
			TStdevMicros: v, P99Micros: v, P999Micros: v}
		b := BWRow{Bytes: 65536, BWPeakGbps: v, BWAvgGbps: v, MsgRateMpps: v, PeakMeasured: true, HasCPUUtil: true, CPUUtilPercent: v}
		d := LatRow{Duration: true, TAvgMicros: v, TPS: v}
		for _, row := range []Row{r, b, d} {
			want, _ := marshalRowReflect(row)
			got, err := AppendRow([]byte("x"), row)
			if err != nil || string(got) != "x"+string(want) {
				t.Errorf("%v: got %s, %v; want x%s", v, got, err, want)
			}
		}
	}
	if _, err := AppendRow(nil, nil); err == nil {
		t.Error("a nil row encoded")
	}
}

// FuzzAppendRow: any values encode as encoding/json encodes them.
func FuzzAppendRow(f *testing.F) {
	f.Add(uint64(65536), uint64(1000), 97.63, 0.0, 1e-7, true)
	f.Add(uint64(2), uint64(5), math.Inf(1), math.NaN(), 1e21, false)
	f.Fuzz(func(t *testing.T, size, iters uint64, a, b, c float64, flag bool) {
		for _, row := range []Row{
			BWRow{Bytes: size, Iterations: iters, BWPeakGbps: a, BWAvgGbps: b, MsgRateMpps: c, PeakMeasured: flag, HasCPUUtil: !flag, CPUUtilPercent: c},
			LatRow{Bytes: size, Iterations: iters, TMinMicros: a, TMaxMicros: b, TTypicalMicros: c, TAvgMicros: a, TStdevMicros: b, P99Micros: c, P999Micros: a},
			LatRow{Bytes: size, Iterations: iters, Duration: true, TAvgMicros: a, TPS: b},
		} {
			want, _ := marshalRowReflect(row)
			got, err := AppendRow(nil, row)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got %s, %v; want %s", got, err, want)
			}
		}
	})
}
