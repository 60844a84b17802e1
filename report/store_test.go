package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testRound(name string, mtu string, vals ...float64) Round {
	return Round{
		Name: name, Start: t0, DurationSec: 30,
		Params:  []Param{{"mtu", mtu}, {"qps", "1"}},
		Metrics: []Metric{{Name: "bw_avg", Labels: []Param{{"size", "65536"}}, Unit: UnitGbps, Better: HigherIsBetter, Values: vals}},
	}
}

func TestStoreAppendLoadQuery(t *testing.T) {
	s := OpenStore(filepath.Join(t.TempDir(), "rounds.jsonl"))
	rounds, res, err := s.Load()
	if err != nil || len(rounds) != 0 || res.Lines != 0 {
		t.Fatalf("missing store: %v %v %v", rounds, res, err)
	}
	want := []Round{testRound("a", "1500", 1, 2), testRound("a", "9000", 3), testRound("b", "9000", 4)}
	for _, r := range want {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	got, res, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	diff(t, want, got)
	diff(t, LoadResult{Lines: 3}, res)
	q, _, err := s.Query("a", Param{"mtu", "9000"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, want[1:2], q)
	q, _, _ = s.Query("", Param{"mtu", "9000"})
	diff(t, want[1:], q)
}

func TestStoreRejectsInvalid(t *testing.T) {
	s := OpenStore(filepath.Join(t.TempDir(), "r.jsonl"))
	bad := testRound("", "1500", 1)
	if err := s.Append(bad); !errors.Is(err, ErrInvalidRound) {
		t.Errorf("no name: %v", err)
	}
	if _, err := os.Stat(s.Path()); err == nil {
		t.Error("invalid round created the file")
	}
	if err := s.Append(testRound("x", "1", 1, 2, nan())); !errors.Is(err, ErrInvalidRound) {
		t.Errorf("NaN: %v", err)
	}
}

// TestStoreTornLine simulates a crash mid-append by cutting the file in
// the middle of its last line, at bytes spread over it.
func TestStoreTornLine(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	s := OpenStore(full)
	rs := []Round{testRound("a", "1500", 1), testRound("a", "9000", 2), testRound("a", "4200", 3)}
	for _, r := range rs {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(full)
	lastStart := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	step := max(1, (len(data)-lastStart)/12)
	for cutAt := lastStart + 1; cutAt < len(data)-1; cutAt += step {
		p := filepath.Join(dir, fmt.Sprintf("torn%d.jsonl", cutAt))
		if err := os.WriteFile(p, data[:cutAt], 0o644); err != nil {
			t.Fatal(err)
		}
		ts := OpenStore(p)
		got, res, err := ts.Load()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmpDiff(rs[:2], got); d != "" || !res.Torn || res.TornLine != 3 || len(res.Corrupt) != 0 {
			t.Fatalf("cut at %d: torn=%v line=%d corrupt=%v diff %s", cutAt, res.Torn, res.TornLine, res.Corrupt, d)
		}
		// The next append starts a new line; the torn one stays as it is
		// (never rewritten) and becomes a corrupt line.
		if err := ts.Append(rs[2]); err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(p)
		if !bytes.HasPrefix(after, data[:cutAt]) {
			t.Fatalf("cut at %d: store rewritten", cutAt)
		}
		got, res, _ = ts.Load()
		if d := cmpDiff(rs, got); d != "" || res.Torn || len(res.Corrupt) != 1 || res.Corrupt[0].Line != 3 {
			t.Fatalf("cut at %d after append: %+v diff %s", cutAt, res, d)
		}
		if !errors.Is(res.Corrupt[0], ErrCorrupt) {
			t.Errorf("corrupt line error %v does not wrap ErrCorrupt", res.Corrupt[0])
		}
	}
}

func TestReadRoundsEdgeCases(t *testing.T) {
	line, _ := json.Marshal(testRound("a", "1500", 1))
	for _, tc := range []struct {
		name    string
		in      string
		n       int
		torn    int
		corrupt []int
	}{
		{"empty", "", 0, 0, nil},
		{"blank lines", "\n\n" + string(line) + "\n\n", 1, 0, nil},
		{"whole last line without newline", string(line), 1, 0, nil},
		{"garbage middle", string(line) + "\n{oops\n" + string(line) + "\n", 2, 0, []int{2}},
		{"garbage last with newline", string(line) + "\n{oops\n", 1, 2, nil},
		{"two objects on a line", string(line) + string(line) + "\n" + string(line) + "\n", 1, 0, []int{1}},
		{"invalid round", `{"name":"","metrics":[]}` + "\n" + string(line) + "\n", 1, 0, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res, err := ReadRounds(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var corrupt []int
			for _, c := range res.Corrupt {
				corrupt = append(corrupt, c.Line)
			}
			if len(got) != tc.n || res.TornLine != tc.torn || fmt.Sprint(corrupt) != fmt.Sprint(tc.corrupt) {
				t.Errorf("rounds %d torn %d corrupt %v; want %d %d %v", len(got), res.TornLine, corrupt, tc.n, tc.torn, tc.corrupt)
			}
		})
	}
}

func FuzzReadRounds(f *testing.F) {
	line, _ := json.Marshal(testRound("a", "1500", 1, 2))
	f.Add(string(line) + "\n")
	f.Add(string(line) + "\n" + string(line[:20]))
	f.Add(`{"name":"x","start":"2026-01-01T00:00:00Z","metrics":[{"name":"m","unit":"u","better":"higher","values":[1e308]}]}`)
	f.Add("\n\n{")
	f.Fuzz(func(t *testing.T, in string) {
		rounds, res, err := ReadRounds(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if res.Torn && res.TornLine != res.Lines {
			t.Fatalf("torn line %d is not the last %d", res.TornLine, res.Lines)
		}
		for _, r := range rounds {
			if err := r.Validate(); err != nil {
				t.Fatalf("loaded an invalid round: %v", err)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("loaded round does not re-encode: %v", err)
			}
		}
	})
}

func BenchmarkStoreLoad(b *testing.B) {
	var buf bytes.Buffer
	for i := range 1000 {
		r := testRound(fmt.Sprintf("round%d", i%10), "9000", 1.5, 2.5, 3.5, 4.5, 5.5)
		r.Start = t0.Add(time.Duration(i) * time.Minute)
		line, _ := json.Marshal(r)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rounds, _, err := ReadRounds(bytes.NewReader(data))
		if err != nil || len(rounds) != 1000 {
			b.Fatal(len(rounds), err)
		}
	}
}

func TestStoreCreatesFolder(t *testing.T) {
	s := OpenStore(filepath.Join(t.TempDir(), "run", "1", "rounds.jsonl"))
	if err := s.Append(testRound("send_bw", "1024", 1, 2)); err != nil {
		t.Fatal(err)
	}
	if rs, _, err := s.Load(); err != nil || len(rs) != 1 {
		t.Errorf("Load = %d rounds, %v", len(rs), err)
	}
}

// TestQueryUnknownName: a round name or a parameter key that no round of
// the store has is an error naming it with the names there are; a known
// key whose value no round has is an empty result, and so is any query of
// an empty store.
func TestQueryUnknownName(t *testing.T) {
	s := OpenStore(filepath.Join(t.TempDir(), "rounds.jsonl"))
	if q, _, err := s.Query("ib_send_bw", Param{"mtu", "9000"}); err != nil || q != nil {
		t.Fatalf("empty store: %v %v", q, err)
	}
	for _, r := range []Round{testRound("ib_send_bw", "1500", 1), testRound("ib_send_lat", "1500", 2)} {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if q, _, err := s.Query("ib_send_bw", Param{"mtu", "9000"}); err != nil || q != nil {
		t.Errorf("known key, other value: %v %v", q, err)
	}
	for _, tc := range []struct {
		name   string
		params []Param
		kind   string
		want   string
	}{
		{"ib_sned_bw", nil, "round", `no round named "ib_sned_bw" (did you mean "ib_send_bw"?); there are: ib_send_bw, ib_send_lat`},
		{"ib_send_bw", []Param{{"mut", "1500"}}, "parameter", `no parameter named "mut" (did you mean "mtu"?); there are: mtu, qps`},
		{"", []Param{{"netdev", "eth0"}}, "parameter", `no parameter named "netdev"; there are: mtu, qps`},
	} {
		q, _, err := s.Query(tc.name, tc.params...)
		var ue *UnknownNameError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnknownName) || q != nil {
			t.Errorf("Query(%q, %v) = %v, %v", tc.name, tc.params, q, err)
			continue
		}
		if ue.Kind != tc.kind || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Query(%q, %v): kind %q, %q\nwant %q", tc.name, tc.params, ue.Kind, err, tc.want)
		}
	}
}
