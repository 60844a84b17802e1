package rxe

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestCounterListingCut cuts the real listings: a "=== NAME ===" line
// without its value, and a path listing whose last line lost its value.
func TestCounterListingCut(t *testing.T) {
	g := string(readRealworld(t, "counters-listing-mlx5-saturated-gpud"))
	cut := g[:strings.Index(g, "=== ./symbol_error ===")+len("=== ./symbol_error ===")]
	l, err := ParseCounterListing(strings.NewReader(cut), SourcePMA)
	if err != nil || len(l.Ports[0].PMA) != 20 || len(l.Warnings) != 1 {
		t.Fatalf("%d counters, warnings %v, %v", len(l.Ports[0].PMA), l.Warnings, err)
	}
	if w := lineWarningAt(t, l.Warnings, 0); w.Line != 61 || w.Text != "symbol_error" {
		t.Errorf("warning %+v", w)
	}
	// hfi1's printf listing with its last value cut: a warning for the
	// name alone; the counters before still count.
	h := string(readRealworld(t, "hw_counters-listing-hfi1-omnipath-netdata"))
	h = strings.TrimSuffix(h, "0\n")
	l, err = ParseCounterListing(strings.NewReader(h), SourceHW)
	if err != nil || len(l.Ports[0].HW) != 35 || len(l.Warnings) != 1 || lineWarningAt(t, l.Warnings, 0).Line != 37 {
		t.Errorf("%d counters, warnings %v, %v", len(l.Ports[0].HW), l.Warnings, err)
	}
	// Paths of both directories and two ports, as grep -H prints them.
	i := string(readRealworld(t, "counters-listing-i40iw-no-pma"))
	mixed := strings.Replace(i, "link_downed:N/A (no PMA)", "link_downed:3", 1)
	mixed = strings.Replace(mixed, "ports/1/counters/port_rcv_data:N/A (no PMA)", "ports/2/hw_counters/port_rcv_data:7", 1)
	l, err = ParseCounterListing(strings.NewReader(mixed), SourceHW)
	if err != nil || len(l.Ports) != 2 || len(l.Warnings) != 6 {
		t.Fatalf("%+v, %v", l, err)
	}
	if p := l.Ports[0]; p.Device != "i40iw0" || p.Port != 1 || p.PMA["link_downed"] != 3 || p.HW != nil {
		t.Errorf("port 1: %+v", p)
	}
	if p := l.Ports[1]; p.Device != "i40iw0" || p.Port != 2 || p.HW["port_rcv_data"] != 7 || p.PMA != nil {
		t.Errorf("port 2: %+v", p)
	}
	if _, err := ParseCounterListing(strings.NewReader(string(readRealworld(t, "show_gids-mlx5-husky-rdma0"))), SourceHW); !errors.Is(err, ErrParse) {
		t.Errorf("show_gids text: %v", err)
	}
}

func FuzzParseCounterListing(f *testing.F) {
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseCounterListing(bytes.NewReader(b), SourceHW)
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("error not wrapping ErrParse: %v", err)
		}
		if err == nil && len(l.Ports) == 0 {
			t.Fatal("no error and no port")
		}
		for _, p := range l.Ports {
			p.Names()
		}
	})
}

func BenchmarkParseCounterListing(b *testing.B) {
	var all []byte
	for _, n := range []string{"counters-listing-mlx5-saturated-gpud", "hw_counters-listing-hfi1-omnipath-netdata", "counters-listing-i40iw-no-pma"} {
		all = append(all, readRealworld(b, n)...)
	}
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCounterListing(bytes.NewReader(all), SourceHW); err != nil {
			b.Fatal(err)
		}
	}
}
