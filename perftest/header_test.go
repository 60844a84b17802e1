package perftest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Header lines of the lab captures and the real-world outputs, as printed
// and after expand(1), split into the pairs perftest printed.
func TestAddPairs(t *testing.T) {
	tests := []struct {
		line string
		want []Field // Unknown after addPairs on a fresh Header, or the set fields below
		dev  string
		qps  int
		conn string
	}{
		// trixie/perftest/send-bw-q4/client.stdout, as printed and expanded.
		{line: " Dual-port       : OFF\t\tDevice         : rxe0", dev: "rxe0"},
		{line: " Dual-port       : OFF          Device         : rxe0", dev: "rxe0"},
		{line: " Number of qps   : 4            Transport type : IB", qps: 4},
		{line: " Connection type : RC           Using SRQ      : OFF", conn: "RC"},
		// realworld irdma-write-bw, mlx5-cx5vf-roce-read-lat-k8s (4-column
		// tab stops), mlx5-raw-ethernet-lat-reflowed (single spaces).
		{line: " Dual-port       : OFF          Device         : irdma1", dev: "irdma1"},
		{line: "         Dual-port       : OFF    Device         : mlx5_5", dev: "mlx5_5"},
		{line: "         Connection type : RC   Using SRQ      : OFF", conn: "RC"},
		{line: "    Dual-port : OFF Device : mlx5_1", dev: "mlx5_1"},
		{line: "    Connection type : RawEth Using SRQ : OFF", conn: "RawEth"},
		{line: "    Number of qps : 1 Transport type : IB", qps: 1},
		// Values with spaces stay whole; a value with colons is no key.
		{line: " Data ex. method : Ethernet"},
		{line: "    MAC attached : EC:0D:9A:C1:BA:61", want: []Field{{Key: "MAC attached", Value: "EC:0D:9A:C1:BA:61"}}},
		// A key alone before a TAB (lab captures).
		{line: " rdma_cm QPs\t : OFF"},
	}
	for _, tt := range tests {
		h := newHeader()
		if !h.addPairs(tt.line) {
			t.Errorf("addPairs(%q) found no pair", tt.line)
			continue
		}
		if d := cmp.Diff(tt.want, h.Unknown); d != "" {
			t.Errorf("addPairs(%q) unknown (-want +got):\n%s", tt.line, d)
		}
		if h.Device != tt.dev || h.QPs != tt.qps || h.Connection != tt.conn {
			t.Errorf("addPairs(%q): device %q qps %d connection %q", tt.line, h.Device, h.QPs, h.Connection)
		}
	}
	h := newHeader()
	if h.addPairs("| EC:0D:9A:65:DC:E5| EC:0D:9A:C1:BA:61|DEFAULT |") || h.addPairs("Test with events. Using mlx5_0_comp0") {
		t.Error("a line without a pair gave one")
	}
}

// splitValueKey takes the known key when there is one, else the text
// after a TAB, after a run of spaces, or the last word.
func TestSplitValueKey(t *testing.T) {
	tests := []struct{ in, value, key string }{
		{" ON           Lock-free      ", " ON           ", "Lock-free"},      // siw, 25.01 expanded
		{" OFF          Using DDP      ", " OFF          ", "Using DDP"},      // siw, 25.01 expanded
		{" RawEth Using SRQ ", " RawEth ", "Using SRQ"},                       // raw Ethernet, reflowed
		{" rdma_cm \tTOS    ", " rdma_cm \t", "TOS"},                          // -R --tos, as printed
		{" ON\t\tDCS num streams\t", " ON\t\t", "DCS num streams"},            // an unknown key after a TAB
		{" ON          DCS num streams ", " ON          ", "DCS num streams"}, // the same, expanded
		{" ON DCS ", " ON ", "DCS"},                                           // ambiguous: the last word
		{"Device", "", "Device"},
	}
	for _, tt := range tests {
		v, k := splitValueKey(tt.in)
		if v != tt.value || k != tt.key {
			t.Errorf("splitValueKey(%q) = %q, %q; want %q, %q", tt.in, v, k, tt.value, tt.key)
		}
	}
}

// Every key Header.set knows is in headerKeys, which splitValueKey uses,
// and the other way round.
func TestHeaderKeys(t *testing.T) {
	for k := range headerKeys {
		h := newHeader()
		if !h.set(k, "ON") && !h.set(k, "1") {
			t.Errorf("headerKeys has %q, Header.set does not take it", k)
		}
	}
	// Every key of every header line of the captures is known.
	files, _ := filepath.Glob("../rocekittest/captures/*/perftest/*/*.stdout")
	rw, _ := filepath.Glob(realWorldSeeds)
	lines := 0
	for _, file := range append(files, rw...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range [][]byte{b, expand(b)} {
			sc := bufio.NewScanner(bytes.NewReader(in))
			for sc.Scan() {
				line := sc.Text()
				seps := pairSeparators(line)
				if len(seps) < 2 || !knownKey(line[:seps[0]]) {
					continue // not a header line with two pairs
				}
				lines++
				h := newHeader()
				h.addPairs(line)
				if len(h.Unknown) != 0 {
					t.Errorf("%s: %q gave unknown pairs %v", file, line, h.Unknown)
				}
			}
		}
	}
	if lines < 500 {
		t.Errorf("only %d header lines with two pairs", lines)
	}
}
