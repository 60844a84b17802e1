package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/perftest"
)

func TestFromPerftestBWRepeats(t *testing.T) {
	b := perftestFixture(t, "bookworm", "send-bw", "client")
	x := perftestFixture(t, "trixie", "send-bw", "client")
	r, err := FromPerftest("send_bw", t0, b, x)
	if err != nil {
		t.Fatal(err)
	}
	bw, ok := r.Metric("bw_avg/size=65536")
	if !ok {
		t.Fatalf("no bw_avg/size=65536 in %v", r.Metrics)
	}
	want := Metric{Name: "bw_avg", Labels: []Param{{"size", "65536"}}, Unit: UnitGbps, Better: HigherIsBetter,
		Values: []float64{mib(6.97), x.BW[0].BWAvgGbps}}
	diff(t, want, bw)
	diff(t, []Param{{"test", "Send BW Test"}, {"device", "rxe0"}, {"qps", "1"}, {"connection", "RC"},
		{"mtu", "1024"}, {"link_type", "Ethernet"}, {"gid_index", "1"}}, r.Params)
	peak, _ := r.Metric("bw_peak/size=65536")
	diff(t, mib(33.64), peak.Values[0])
	if err := r.Validate(); err != nil {
		t.Error(err)
	}
}

func TestFromPerftestSweep(t *testing.T) {
	r, err := FromPerftest("send_bw_a", t0, perftestFixture(t, "trixie", "send-bw-a", "client"))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := r.Metric("bw_avg/size=8388608")
	if !ok {
		t.Fatal("no 8 MiB row")
	}
	diff(t, []float64{mib(10.86)}, m.Values)
	n := 0
	for _, m := range r.Metrics {
		if m.Name == "bw_avg" {
			n++
		}
	}
	if n != 23 { // 2 B to 8 MiB
		t.Errorf("%d bw_avg sizes, want 23", n)
	}
}

func TestFromPerftestLatency(t *testing.T) {
	r, err := FromPerftest("send_lat", t0, perftestFixture(t, "bookworm", "send-lat", "client"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range r.Metrics {
		if m.Unit != UnitMicros || m.Better != LowerIsBetter {
			t.Errorf("%s: %s %s", m.Key(), m.Unit, m.Better)
		}
		got[m.Key()] = m.Values[0]
	}
	diff(t, map[string]float64{
		"t_min/size=2": 32.71, "t_max/size=2": 5202.19, "t_typical/size=2": 34.14, "t_avg/size=2": 109.39,
		"t_stdev/size=2": 349.91, "p99/size=2": 2184.56, "p99.9/size=2": 5202.19,
	}, got)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "repeat 1: ") {
		t.Errorf("parser warnings not carried: %q", r.Warnings)
	}
}

func TestFromPerftestFailed(t *testing.T) {
	r, err := FromPerftest("x", t0, perftestFixture(t, "bookworm", "send-bw-noserver", "client"), nil)
	if !errors.Is(err, ErrNoData) {
		t.Fatalf("err = %v, want ErrNoData", err)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "repeat 1: failed: connect") || !strings.Contains(w, "repeat 2: no result") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestFromPerftestArgvParams: a result RunPair made carries its argv, and
// the round records the test options from it.
func TestFromPerftestArgvParams(t *testing.T) {
	x := perftestFixture(t, "trixie", "send-bw", "client")
	x.Argv = strings.Fields("ib_send_bw -d rxe0 -x 1 -F -s 4096 -n 300 -q 2 -m 1024 -u 22 --duration=5 -b -p 18515 198.18.0.1")
	r, err := FromPerftest("send_bw", t0, x)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, []Param{{"test", "Send BW Test"}, {"device", "rxe0"}, {"qps", "1"}, {"connection", "RC"},
		{"mtu", "1024"}, {"link_type", "Ethernet"}, {"gid_index", "1"},
		{"argv", strings.Join(x.Argv, " ")}, {"message_size", "4096"}, {"iterations", "300"},
		{"duration_sec", "5"}, {"qps_asked", "2"}, {"mtu_asked", "1024"}, {"qp_timeout", "22"},
		{"bidirectional", "true"}}, r.Params)
}

// TestFromPerftestRecordsOptions: the options RunPair ran travel to the
// round as data (Round.Perftest), both ends, and the parameters come
// from them, not from the command line.
func TestFromPerftestRecordsOptions(t *testing.T) {
	x := perftestFixture(t, "trixie", "send-bw", "client")
	o := perftest.Options{Test: perftest.SendBW, Iterations: 300, QPs: 4, QPTimeout: 22, Bidirectional: true,
		Server: perftest.End{Device: "rxe0p", GIDIndex: new(3), CPUs: []int{2}}, Client: perftest.End{Device: "rxe0", GIDIndex: new(1)}}
	x.Options = &o
	x.Argv = []string{"ib_send_bw", "-d", "rxe0", "-x", "1"} // not read: the options are
	r, err := FromPerftest("send_bw", t0, x)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, &o, r.Perftest)
	diff(t, []Param{{"test", "Send BW Test"}, {"device", "rxe0"}, {"qps", "1"}, {"connection", "RC"},
		{"mtu", "1024"}, {"link_type", "Ethernet"}, {"gid_index", "1"},
		{"argv", "ib_send_bw -d rxe0 -x 1"}, {"iterations", "300"}, {"qps_asked", "4"}, {"qp_timeout", "22"},
		{"bidirectional", "true"}}, r.Params)
	got, err := r.PerftestOptions()
	if err != nil || got.Server.Device != "rxe0p" || *got.Server.GIDIndex != 3 {
		t.Errorf("PerftestOptions %+v, %v", got, err)
	}
	// Stored and read back, the options are the same.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err := ReadRounds(bytes.NewReader(append(b, '\n')))
	if err != nil || len(rs) != 1 {
		t.Fatalf("read back %d rounds, %v", len(rs), err)
	}
	diff(t, &o, rs[0].Perftest)
	if !strings.Contains(string(b), `"perftest":{"test":"ib_send_bw","server":{"device":"rxe0p","gid_index":3,"cpus":[2]}`) {
		t.Errorf("stored as %s", b)
	}
}

// TestOldRoundOptions: a round stored before the options were recorded
// (testdata/store-before-options, written by the code of then) still
// loads; its options are read back from its command lines, both ends;
// and a round made now from those options has the parameters it stored,
// so the two compare without a spurious difference.
func TestOldRoundOptions(t *testing.T) {
	rounds, _, err := OpenStore("testdata/store-before-options/rounds.jsonl").Load()
	if err != nil || len(rounds) != 1 {
		t.Fatalf("%d rounds, %v", len(rounds), err)
	}
	old := rounds[0]
	if old.Perftest != nil {
		t.Fatal("the old round has recorded options")
	}
	got, err := old.PerftestOptions()
	if err != nil {
		t.Fatal(err)
	}
	want := perftest.Options{Test: perftest.SendBW, Size: 65536, Iterations: 300, QPs: 2, MTU: 1024, QPTimeout: 22,
		NoFreqCheck: true, ReportGbits: true, Port: 18600,
		Server: perftest.End{Device: "rxe0", GIDIndex: new(1), CPUs: []int{0}},
		Client: perftest.End{Device: "rxe0", GIDIndex: new(1), CPUs: []int{1}}}
	diff(t, want, got)

	x := perftestFixture(t, "trixie", "send-bw-gbits", "client")
	x.Options = &got
	x.Argv, _ = got.ClientArgv("198.18.0.1")
	now, err := FromPerftest(old.Name, t0, x)
	if err != nil {
		t.Fatal(err)
	}
	// The parameters of the options, from argv on (those before are the
	// header's, and the step set "qps" itself).
	from := func(ps []Param) []Param {
		for i, p := range ps {
			if p.Key == "argv" {
				return ps[i:]
			}
		}
		return nil
	}
	n := len(from(now.Params))
	if n < 6 || len(from(old.Params)) < n {
		t.Fatalf("old params %v, new %v", old.Params, now.Params)
	}
	diff(t, from(old.Params)[:n], from(now.Params))

	// Without a fingerprint the argv parameter gives the client's end.
	old.Fingerprint = nil
	cli, err := old.PerftestOptions()
	if err != nil || cli.Client.Device != "rxe0" || cli.Server.Device != "" || cli.Iterations != 300 {
		t.Errorf("from argv: %+v, %v", cli, err)
	}
	// A round with neither says so.
	if _, err := (&Round{Name: "udp"}).PerftestOptions(); !errors.Is(err, ErrNoPerftestOptions) {
		t.Errorf("no options: %v", err)
	}
}
