package nic

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func realworldEthtoolText(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realworldEthtoolDir, name, "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parseEthtoolString(t testing.TB, s string) (map[string]uint64, []TextWarning, error) {
	t.Helper()
	st, w, err := ParseEthtoolStats(strings.NewReader(s))
	if st.Ethtool == nil {
		t.Fatal("Ethtool map is nil")
	}
	return st.Ethtool, w, err
}

// TestParseEthtoolStatsWhitespace: the same real output read with tabs,
// CRLF line ends, or without header and indentation gives the same
// counters and no warning.
func TestParseEthtoolStatsWhitespace(t *testing.T) {
	orig := realworldEthtoolText(t, "ice-e810-ethq")
	want, w, err := parseEthtoolString(t, orig)
	if err != nil || len(w) > 0 || len(want) != 602 {
		t.Fatalf("%d counters, %v, %v", len(want), w, err)
	}
	for variant, text := range map[string]string{
		"tabs":       strings.ReplaceAll(orig, "     ", "\t"),
		"crlf":       strings.ReplaceAll(orig, "\n", "\r\n"),
		"bare":       strings.ReplaceAll(strings.TrimPrefix(orig, "NIC statistics:\n"), "     ", ""),
		"wide value": strings.ReplaceAll(orig, ": ", ":\t   "),
		"no last LF": strings.TrimSuffix(orig, "\n"),
	} {
		got, w, err := parseEthtoolString(t, text)
		if err != nil || len(w) > 0 || !maps.Equal(got, want) {
			t.Errorf("%s: %d counters (want %d), warnings %v, error %v", variant, len(got), len(want), w, err)
		}
	}
}

// TestParseEthtoolStatsBadLines: lines of a real output changed the way
// pastes change them become warnings with their line numbers; the other
// counters are kept.
func TestParseEthtoolStatsBadLines(t *testing.T) {
	orig := realworldEthtoolText(t, "hv-netvsc-azure36") // 7 lines, 6 counters
	lines := strings.Split(orig, "\n")
	mutate := func(i int, s string) string {
		l := slices.Clone(lines)
		l[i] = s
		return strings.Join(l, "\n")
	}
	for _, c := range []struct {
		text   string
		line   int
		reason string
		n      int
		name   string // the changed counter, and its value when kept
		value  uint64
		kept   bool
	}{
		{mutate(6, "     tx_send_full: 18446744073709551616"), 7, reasonRange, 5, "tx_send_full", 0, false},
		{mutate(6, "     tx_send_full: 18446744073709551615"), 0, "", 6, "tx_send_full", 18446744073709551615, true},
		{mutate(6, "     tx_send_full: n/a"), 7, reasonNotNumber, 5, "tx_send_full", 0, false},
		{mutate(6, "     tx_send_full: -1"), 7, reasonNotNumber, 5, "tx_send_full", 0, false},
		{mutate(6, "     tx_send_full: 17464abc"), 7, reasonNotNumber, 5, "tx_send_full", 0, false},
		{mutate(6, "     tx_send_full: 17464 (was 0)"), 7, reasonTrailing, 6, "tx_send_full", 17464, true},
		{mutate(6, "     tx_send_full:"), 7, reasonNoValue, 5, "tx_send_full", 0, false},
		{mutate(6, "     : 17464"), 7, reasonNoName, 5, "tx_send_full", 0, false},
		{mutate(6, "     tx_send_full 17464"), 7, reasonNotCounter, 5, "tx_send_full", 0, false},
		{mutate(0, "$ ethtool -S eth0"), 1, reasonNotCounter, 6, "tx_send_full", 17464, true},
		{mutate(0, "Standard stats for eth0:"), 0, "", 6, "tx_busy", 0, true},
		{mutate(3, "     tx_no_space: 0 tx_too_big: 0"), 4, reasonJoined, 6, "tx_too_big", 0, true},
		{orig + orig, 9, reasonRepeated, 6, "tx_send_full", 17464, true},
	} {
		got, w, err := parseEthtoolString(t, c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if len(got) != c.n {
			t.Errorf("%q: %d counters, want %d", c.text, len(got), c.n)
		}
		if v, ok := got[c.name]; ok != c.kept || v != c.value {
			t.Errorf("%q: %s = %d (kept %v), want %d (kept %v)", c.text, c.name, v, ok, c.value, c.kept)
		}
		switch {
		case c.line == 0 && len(w) > 0:
			t.Errorf("%q: warnings %v", c.text, w)
		case c.line > 0 && (len(w) == 0 || w[0].Line != c.line || w[0].Reason != c.reason):
			t.Errorf("%q: warnings %v, want line %d: %s", c.text, w, c.line, c.reason)
		}
	}
}

func TestParseEthtoolStatsErrors(t *testing.T) {
	long := "NIC statistics:\n     rx_packets: 1\n" + strings.Repeat("x", 17<<20) + "\n"
	for _, c := range []struct {
		text, msg string
		n         int
	}{
		{"", "no counters: empty input", 0},
		{"\n\n   \n", "no counters: empty input", 0},
		{"no stats available\n", "line 1: no counters in 1 lines", 0},
		{"\nNIC statistics:\n", "line 2: no counters in 2 lines", 0},
		{long, "line 3: bufio.Scanner: token too long", 1},
	} {
		got, _, err := parseEthtoolString(t, c.text)
		if !errors.Is(err, ErrEthtoolText) || !strings.Contains(err.Error(), c.msg) || len(got) != c.n {
			t.Errorf("%.40q: %d counters, error %v, want %q", c.text, len(got), err, c.msg)
		}
	}
}

// renderEthtool prints counters as ethtool -S does.
func renderEthtool(m map[string]uint64) string {
	var b strings.Builder
	b.WriteString("NIC statistics:\n")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "     %s: %d\n", k, m[k])
	}
	return b.String()
}

func FuzzParseEthtoolStats(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join(realworldEthtoolDir, "*", "output.txt"))
	dirs = append(dirs, filepath.Join(capturesKernelDir, "ethtool-stats", "003-insights-core-igb.txt"))
	for _, p := range dirs {
		if b, err := os.ReadFile(p); err == nil {
			for _, chunk := range seedChunks(b, 2048) {
				f.Add(chunk)
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		st, warns, err := ParseEthtoolStats(bytes.NewReader(in))
		if err != nil && !errors.Is(err, ErrEthtoolText) {
			t.Fatalf("error %v does not wrap ErrEthtoolText", err)
		}
		if (err == nil) != (len(st.Ethtool) > 0) && !strings.Contains(fmt.Sprint(err), "too long") {
			t.Fatalf("%d counters with error %v", len(st.Ethtool), err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		last := 0
		for _, w := range warns {
			if w.Line < last || w.Line < 1 || w.Line > lines || w.Reason == "" {
				t.Fatalf("warning %v of %d lines", w, lines)
			}
			last = w.Line
		}
		plain := map[string]uint64{}
		for name, v := range st.Ethtool {
			if name == "" || strings.TrimSpace(name) != name {
				t.Fatalf("name %q", name)
			}
			if !strings.ContainsAny(name, ":\n") {
				plain[name] = v
			}
		}
		again, w, err := parseEthtoolString(t, renderEthtool(plain))
		if len(plain) > 0 && (err != nil || len(w) > 0 || !maps.Equal(again, plain)) {
			t.Fatalf("render and parse again: %v, %v, %v != %v", err, w, again, plain)
		}
	})
}

// seedChunks cuts a corpus file at line ends into pieces of at most about
// max bytes: small seeds keep the fuzzer's minimizing short.
func seedChunks(b []byte, max int) [][]byte {
	var out [][]byte
	for len(b) > max {
		i := bytes.LastIndexByte(b[:max], '\n')
		if i < 0 {
			i = max - 1
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

func BenchmarkParseEthtoolStats(b *testing.B) {
	var in []byte
	dirs, _ := filepath.Glob(filepath.Join(realworldEthtoolDir, "*", "output.txt"))
	for _, p := range dirs {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, data...)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseEthtoolStats(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
