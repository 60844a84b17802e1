package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// fleetLine and fleetFailed are cells as fleet.CellRound stores them
// (fleet.writeCells' output; fleet imports report, so they are copied):
// the lines a resume of 500,000 cells reads.
const (
	fleetLine   = `{"name":"rack12","start":"2026-12-01T00:00:00Z","duration_sec":31,"params":[{"key":"fleet_a","value":"h1"},{"key":"fleet_b","value":"h4"},{"key":"fleet_a_nic","value":"enp59s0f0np0"},{"key":"fleet_b_nic","value":"enp59s0f0np0"},{"key":"line_rate_gbps","value":"100"},{"key":"fleet_status","value":"ok"}],"metrics":[{"name":"bw_avg","unit":"Gbit/s","better":"higher","values":[99]}]}`
	fleetFailed = `{"name":"rack12","start":"2026-12-01T00:00:02.5Z","duration_sec":31.25,"params":[{"key":"fleet_a","value":"h0"},{"key":"fleet_b","value":"h4"},{"key":"fleet_a_nic","value":"enp59s0f0np0"},{"key":"fleet_b_nic","value":"enp59s0f0np0"},{"key":"fleet_status","value":"failed"}],"metrics":null,"warnings":["error: ib_write_bw: exit status 1","server: Couldn't connect to 198.18.0.2:18515"]}`
)

// agree fails unless the line decoder and decodeRound (encoding/json)
// decode line alike, and tells whether the fast path took it.
func agree(t testing.TB, line string) (fast bool) {
	t.Helper()
	d := newLineDecoder()
	got, gerr := d.decode([]byte(line))
	want, werr := decodeRound([]byte(line))
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%q: error %v, want %v", line, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", line, got, want)
	}
	if d.fast > 0 && werr != nil {
		t.Fatalf("%q: the fast path took a line encoding/json refuses", line)
	}
	return d.fast > 0
}

// TestLineDecoderRealLines: every line of the demo's stores and the fleet
// cells decode as encoding/json decodes them; the fleet cells and the
// demo rounds without a fingerprint take the fast path, the others fall
// back.
func TestLineDecoderRealLines(t *testing.T) {
	for _, l := range []string{fleetLine, fleetFailed} {
		if !agree(t, l) {
			t.Errorf("fleet cell fell back: %s", l)
		}
	}
	fast, slow := 0, 0
	for _, l := range demoLines(t) {
		switch took := agree(t, l); {
		case took && strings.Contains(l, `"fingerprint"`):
			t.Errorf("fast path took a fingerprint: %.80s", l)
		case took:
			fast++
		default:
			slow++
		}
	}
	if fast != 8 || slow != 8 {
		t.Errorf("%d demo lines fast, %d fell back; want 8 and 8", fast, slow)
	}
}

// TestLineDecoderOddLines: mangled fleet cells decode as encoding/json
// decodes them (or fail with its error), and the fast path takes only
// those it can decode exactly.
func TestLineDecoderOddLines(t *testing.T) {
	sub := func(old, new string) string {
		if !strings.Contains(fleetLine, old) {
			t.Fatalf("%q not in the line", old)
		}
		return strings.Replace(fleetLine, old, new, 1)
	}
	for _, tc := range []struct {
		what string
		line string
		fast bool
	}{
		{"as stored", fleetLine, true},
		{"blanks between tokens", strings.NewReplacer(`,`, " ,\t", `":`, "\"\r: ", `{`, "{ ", `]`, " ]").Replace(fleetLine), true},
		{"empty arrays", sub(`"values":[99]`, `"values":[]`), true},
		{"no labels key, empty labels", sub(`"unit":"Gbit/s"`, `"labels":[],"unit":"Gbit/s"`), true},
		{"labels", sub(`"unit":"Gbit/s"`, `"labels":[{"key":"size","value":"65536"}],"unit":"Gbit/s"`), true},
		{"fields in another order", sub(`"name":"rack12","start":"2026-12-01T00:00:00Z",`, `"start":"2026-12-01T00:00:00Z","name":"rack12",`), true},
		{"numbers", sub(`[99]`, `[-0,0.5,1e3,-2.5E-3,12345678901234567,1234567890123456,0.1]`), true},
		{"time with an offset", sub(`00:00:00Z`, `02:00:00.123+02:00`), true},
		{"UTF-8 in a value", sub(`"h1"`, `"hôte-1"`), true},
		{"tool_sec and outputs", sub(`"duration_sec":31`, `"duration_sec":31,"tool_sec":30.5,"outputs":[{"repeat":1,"role":"client","stream":"stdout","path":"a/b"}]`), true},
		{"nulls for lists", sub(`"values":[99]`, `"values":null,"labels":null`), true},
		{"null metrics and warnings", sub(`"metrics":[{"name":"bw_avg","unit":"Gbit/s","better":"higher","values":[99]}]`, `"metrics":null,"warnings":null,"outputs":null`), true},
		{"empty param", sub(`{"key":"fleet_a","value":"h1"}`, `{}`), true},
		{"escape", sub(`"h1"`, `"h\u0031"`), false},
		{"escaped quote", sub(`"h1"`, `"h\"1"`), false},
		{"not UTF-8", sub(`"h1"`, "\"h\xff1\""), false},
		{"control byte", sub(`"h1"`, "\"h\x011\""), false},
		{"null params", sub(`"params":[`, `"params":null,"x":[`), false},
		{"nul", sub(`"values":[99]`, `"values":nul`), false},
		{"null name", sub(`"name":"rack12"`, `"name":null`), false},
		{"key twice", sub(`"duration_sec":31`, `"duration_sec":31,"duration_sec":32`), false},
		{"param key twice", sub(`{"key":"fleet_a","value":"h1"}`, `{"key":"fleet_a","value":"h1","value":"h2"}`), false},
		{"key in capitals", sub(`"name":"rack12"`, `"Name":"rack12"`), false},
		{"unknown key", sub(`"duration_sec":31`, `"duration_sec":31,"note":"x"`), false},
		{"fingerprint", sub(`"duration_sec":31`, `"duration_sec":31,"fingerprint":{}`), false},
		{"number out of range", sub(`[99]`, `[1e400]`), false},
		{"leading zero", sub(`[99]`, `[099]`), false},
		{"bare dot", sub(`[99]`, `[9.]`), false},
		{"plus sign", sub(`[99]`, `[+9]`), false},
		{"string for a number", sub(`[99]`, `["99"]`), false},
		{"repeat not an integer", sub(`"duration_sec":31`, `"duration_sec":31,"outputs":[{"repeat":1.0}]`), false},
		{"repeat too big", sub(`"duration_sec":31`, `"duration_sec":31,"outputs":[{"repeat":99999999999999999999}]`), false},
		{"unknown better", sub(`"higher"`, `"sideways"`), false},
		{"bad time", sub(`2026-12-01`, `2026-13-01`), false},
		{"negative duration", sub(`"duration_sec":31`, `"duration_sec":-1`), false},
		{"metric twice", sub(`"values":[99]}`, `"values":[99]},{"name":"bw_avg","unit":"Gbit/s","values":[1]}`), false},
		{"unit with a blank", sub(`"Gbit/s"`, `"Gbit /s"`), false},
		{"no unit", sub(`"Gbit/s"`, `""`), false},
		{"metric without a name", sub(`"name":"bw_avg"`, `"name":""`), false},
		{"two metrics", sub(`"values":[99]}`, `"values":[99]},{"name":"bw_peak","unit":"Gbit/s","values":[1]}`), true},
		{"no name", sub(`"name":"rack12",`, ``), false},
		{"trailing comma", sub(`"values":[99]`, `"values":[99,]`), false},
		{"garbage after", fleetLine + "x", false},
		{"two rounds", fleetLine + fleetLine, false},
		{"cut", fleetLine[:len(fleetLine)-3], false},
		{"empty object", `{}`, false},
		{"not an object", `[1]`, false},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if got := agree(t, tc.line); got != tc.fast {
				t.Errorf("fast path %v, want %v", got, tc.fast)
			}
		})
	}
}

// TestLineDecoderSharesStrings: the host and NIC names and parameter keys
// of two lines are one copy; the slices are each round's own, so that a
// caller may change one round without changing another.
func TestLineDecoderSharesStrings(t *testing.T) {
	d := newLineDecoder()
	a, err1 := d.decode([]byte(fleetLine))
	b, err2 := d.decode([]byte(strings.Replace(fleetLine, `[99]`, `[98]`, 1)))
	if err1 != nil || err2 != nil || d.fast != 2 {
		t.Fatal(err1, err2, d.fast)
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	if !same(a.Params[2].Value, b.Params[3].Value) || !same(a.Params[0].Key, b.Params[0].Key) || !same(a.Name, b.Name) {
		t.Error("short strings are not shared")
	}
	a.Params[0].Value = "changed"
	a.Metrics[0].Values[0] = 1
	if b.Params[0].Value != "h1" || b.Metrics[0].Values[0] != 98 {
		t.Errorf("rounds share slices: %v %v", b.Params[0], b.Metrics[0].Values)
	}
	long := strings.Repeat("x", internLen+1)
	c, _ := d.decode([]byte(strings.Replace(fleetLine, `"h1"`, `"`+long+`"`, 1)))
	e, _ := d.decode([]byte(strings.Replace(fleetLine, `"h1"`, `"`+long+`"`, 1)))
	if c.Params[0].Value != long || same(c.Params[0].Value, e.Params[0].Value) {
		t.Error("a long string was shared or lost")
	}
}

// FuzzLineDecoder: whatever the line, the line decoder decodes it as
// encoding/json does, or fails with its error.
func FuzzLineDecoder(f *testing.F) {
	f.Add(fleetLine)
	f.Add(fleetFailed)
	for _, l := range demoLines(f) {
		if !strings.Contains(l, `"fingerprint"`) {
			f.Add(l)
		}
	}
	f.Add(strings.Replace(fleetLine, `[99]`, `[-0,1e3,12345678901234567,1e400]`, 1))
	f.Add(strings.Replace(fleetLine, `"h1"`, `"h\u0031"`, 1))
	f.Add(`{"name":"x","start":"2026-01-01T00:00:00+02:00","outputs":[{"repeat":-0}],"warnings":[]}`)
	f.Fuzz(func(t *testing.T, line string) {
		agree(t, line)
	})
}

// TestScanRoundsFleetLines: a store of fleet cells read in chunks smaller
// than a line, a line or two, and with lines that end exactly at a
// chunk's end, with a corrupt middle line and a torn last one, loads as
// the sequential reader with encoding/json loads it.
func TestScanRoundsFleetLines(t *testing.T) {
	defer func(n int) { scanChunk = n }(scanChunk)
	var lines []string
	for i := range 3*scanBatch + 7 {
		l := strings.Replace(fleetLine, `"h1"`, fmt.Sprintf(`"h%d"`, i%1000), 1)
		switch {
		case i == 700:
			l = l[:len(l)/2] // a corrupt middle line
		case i%5 == 0:
			l = fleetFailed
		}
		lines = append(lines, l)
	}
	whole := strings.Join(lines, "\n") + "\n"
	for _, chunk := range []int{1, 7, len(fleetLine), len(fleetLine) + 1, 4096, 256 << 10} {
		scanChunk = chunk
		rounds, res := sameLoad(t, whole)
		if len(rounds) != len(lines)-1 || len(res.Corrupt) != 1 || res.Corrupt[0].Line != 701 || res.Torn {
			t.Errorf("chunk %d: %d rounds, result %+v", chunk, len(rounds), res)
		}
		_, res = sameLoad(t, whole+fleetLine[:100])
		if !res.Torn || res.TornLine != len(lines)+1 || len(res.Corrupt) != 1 {
			t.Errorf("chunk %d: torn %+v", chunk, res)
		}
		_, res = sameLoad(t, whole+fleetLine[:100]+"\n")
		if !res.Torn || res.TornLine != len(lines)+1 {
			t.Errorf("chunk %d: torn with its newline %+v", chunk, res)
		}
		if _, res = sameLoad(t, whole+fleetLine[:100]+"\n\n"); res.Torn || len(res.Corrupt) != 2 {
			t.Errorf("chunk %d: a cut line before a blank one %+v", chunk, res)
		}
		if _, res = sameLoad(t, whole+fleetLine); res.Torn || res.Lines != len(lines)+1 {
			t.Errorf("chunk %d: a whole last round without its newline %+v", chunk, res)
		}
	}
}

// fleetStore is n fleet cells as a store holds them, every 50th failed.
func fleetStore(n int) []byte {
	var buf bytes.Buffer
	for i := range n {
		l := fleetLine
		if i%50 == 0 {
			l = fleetFailed
		}
		l = strings.Replace(l, `"h1"`, fmt.Sprintf(`"h%d"`, i%1000), 1)
		l = strings.Replace(l, `[99]`, fmt.Sprintf(`[%d]`, 90+i%10), 1)
		buf.WriteString(l + "\n")
	}
	return buf.Bytes()
}

// BenchmarkStoreScan reads a store of 20,000 fleet cells and the demo's
// real rounds (half of them with a fingerprint, which encoding/json
// decodes) through ScanRounds, with the line decoder (lines) and with
// encoding/json alone (json), in MB/s of store; -cpu 1 gives the cost on
// one core.
func BenchmarkStoreScan(b *testing.B) {
	var demo bytes.Buffer
	for demo.Len() < 4<<20 {
		for _, l := range demoLines(b) {
			demo.WriteString(l + "\n")
		}
	}
	for _, st := range []struct {
		name string
		data []byte
	}{{"fleet", fleetStore(20000)}, {"demo", demo.Bytes()}} {
		for _, fast := range []bool{true, false} {
			name := st.name + "/json"
			if fast {
				name = st.name + "/lines"
			}
			b.Run(name, func(b *testing.B) {
				defer func() { fastLines = true }()
				fastLines = fast
				b.SetBytes(int64(len(st.data)))
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					res, err := ScanRounds(bytes.NewReader(st.data), func(Round) error { n++; return nil })
					if err != nil || len(res.Corrupt) > 0 || n == 0 {
						b.Fatal(n, res, err)
					}
				}
			})
		}
	}
}

// BenchmarkLineDecoder decodes one fleet cell line on one goroutine, with
// the line decoder and with encoding/json: the decoding alone, without the
// reading and the hand-over of ScanRounds.
func BenchmarkLineDecoder(b *testing.B) {
	line := []byte(fleetLine)
	for _, fast := range []bool{true, false} {
		name := "json"
		if fast {
			name = "lines"
		}
		b.Run(name, func(b *testing.B) {
			defer func() { fastLines = true }()
			fastLines = fast
			d := newLineDecoder()
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.decode(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
