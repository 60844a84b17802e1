package nic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// capturesKernelDir is the shared check corpus of real kernel files (other
// projects' data, read in place and never copied here).
const capturesKernelDir = "../../shared/reference/captures/kernel"

// captureCase is one entry of the check corpus's cases.json.
type captureCase struct {
	File   string          `json:"file"`
	Expect json.RawMessage `json:"expect"`
}

func loadCaptureCases(t *testing.T, prefix string) []captureCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capturesKernelDir, "cases.json"))
	if os.IsNotExist(err) {
		t.Skipf("%s is absent", capturesKernelDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var all, out []captureCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		if strings.HasPrefix(c.File, prefix) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s cases in cases.json", prefix)
	}
	return out
}

// TestCapturesSNMP reads the corpus's /proc/net/snmp files and checks the
// Udp values cases.json expects.
func TestCapturesSNMP(t *testing.T) {
	for _, c := range loadCaptureCases(t, "snmp/") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			var want struct{ Udp map[string]uint64 }
			if err := json.Unmarshal(c.Expect, &want); err != nil || len(want.Udp) == 0 {
				t.Fatalf("expect %s: %v", c.Expect, err)
			}
			f, err := os.Open(filepath.Join(capturesKernelDir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := ParseSNMP(f)
			if err != nil {
				t.Fatal(err)
			}
			u, err := s.UDP()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]uint64{"InDatagrams": u.InDatagrams, "NoPorts": u.NoPorts, "InErrors": u.InErrors,
				"OutDatagrams": u.OutDatagrams, "RcvbufErrors": u.RcvbufErrors, "SndbufErrors": u.SndbufErrors,
				"InCsumErrors": u.InCsumErrors, "IgnoredMulti": u.IgnoredMulti}
			for k, v := range want.Udp {
				g, ok := got[k]
				if !ok {
					t.Fatalf("UDPCounters has no %s", k)
				}
				if g != v {
					t.Errorf("Udp %s = %d, want %d", k, g, v)
				}
			}
		})
	}
}

// queueNumber is a queue or ring number in a counter name, written N in
// cases.json ("rx_queue_N_alloc_failed").
var queueNumber = regexp.MustCompile(`_[0-9]+_`)

// TestCapturesEthtoolStats reads the corpus's `ethtool -S` texts with
// ParseEthtoolStats and checks the classes cases.json expects.
func TestCapturesEthtoolStats(t *testing.T) {
	for _, c := range loadCaptureCases(t, "ethtool-stats/") {
		t.Run(filepath.Base(c.File), func(t *testing.T) {
			var want struct {
				AllLossesZero bool                `json:"all_losses_zero"`
				Classes       map[string][]string `json:"classes"`
			}
			if err := json.Unmarshal(c.Expect, &want); err != nil || len(want.Classes) == 0 {
				t.Fatalf("expect %s: %v", c.Expect, err)
			}
			f, err := os.Open(filepath.Join(capturesKernelDir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, warns, err := ParseEthtoolStats(f)
			if err != nil || len(warns) > 0 || len(st.Ethtool) < 10 {
				t.Fatalf("%d counters, warnings %v, error %v", len(st.Ethtool), warns, err)
			}
			byPattern := map[string][]string{} // "rx_queue_N_drops" → names
			for name, v := range st.Ethtool {
				p := queueNumber.ReplaceAllString(name, "_N_")
				byPattern[p] = append(byPattern[p], name)
				if cl := ClassifyCounter(name); want.AllLossesZero && cl.IsLoss() && v != 0 {
					t.Errorf("%s (%s) = %d, want every loss 0", name, cl, v)
				}
			}
			for class, patterns := range want.Classes {
				for _, p := range patterns {
					p, _, _ = strings.Cut(p, " ") // "tx_hwtstamp_timeouts (PTP timestamp timeouts)"
					names := byPattern[p]
					if len(names) == 0 {
						t.Errorf("no counter %s", p)
					}
					for _, n := range names {
						got := ClassifyCounter(n)
						if class == "not_loss" && got.IsLoss() || class != "not_loss" && got != CounterClass(class) {
							t.Errorf("ClassifyCounter(%q) = %q, want %s", n, got, class)
						}
					}
				}
			}
		})
	}
}
