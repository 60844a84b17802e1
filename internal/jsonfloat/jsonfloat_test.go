package jsonfloat

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzAppend: every finite float is written as json.Marshal writes it.
func FuzzAppend(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, 1e-7, 1.5e-6, 9.99e20, 1e21, -3.25e-9, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456.789} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append(nil, v); string(got) != string(want) {
			t.Errorf("Append(%v) = %s, json.Marshal %s", v, got, want)
		}
	})
}
