package perftest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func marshalMap(t *testing.T, res *Result) map[string]any {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

// The keys of the examples/parse contract, for each kind of result.
func TestMarshalContract(t *testing.T) {
	bw, _ := Parse(bytes.NewReader(readTestdata(t, "v26-send-bw-client.txt")))
	m := marshalMap(t, bw)
	want := map[string]any{
		"tool": "perftest", "test": "Send BW Test", "kind": "bw",
		"device": "mlx5_0", "qps": 1.0, "connection": "RC", "mtu": 4096.0, "link_type": "Ethernet", "gid_index": 3.0,
	}
	got := map[string]any{"tool": m["tool"], "test": m["test"], "kind": m["kind"]}
	for _, k := range []string{"device", "qps", "connection", "mtu", "link_type", "gid_index"} {
		got[k] = m["header"].(map[string]any)[k]
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("contract keys (-want +got):\n%s", d)
	}
	rows := m["bw"].([]any)
	r0 := rows[0].(map[string]any)
	for _, k := range []string{"bytes", "iterations", "bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps"} {
		if _, ok := r0[k]; !ok {
			t.Errorf("bw row lacks %q: %v", k, r0)
		}
	}
	if r2 := rows[2].(map[string]any); r2["bw_peak_gbps"] != nil {
		t.Errorf("inf peak = %v, want null", r2["bw_peak_gbps"])
	}
	if w := m["warnings"].([]any); len(w) != 2 || !strings.HasPrefix(w[1].(string), "line 28: 262144 bytes: BW peak inf") {
		t.Errorf("warnings = %v", w)
	}

	lat, _ := Parse(bytes.NewReader(readTestdata(t, "v26-write-lat-client.txt")))
	m = marshalMap(t, lat)
	l0 := m["lat"].([]any)[0].(map[string]any)
	wantLat := map[string]any{"bytes": 2.0, "iterations": 100000.0, "t_min_us": 1.02, "t_max_us": 4.17, "t_typical_us": 1.08,
		"t_avg_us": 1.1, "t_stdev_us": 0.05, "p99_us": 1.31, "p999_us": 2.95}
	if d := cmp.Diff(wantLat, l0); d != "" {
		t.Errorf("lat row (-want +got):\n%s", d)
	}
	if m["header"].(map[string]any)["gid_index"] != nil {
		t.Errorf("gid_index = %v, want null", m["header"].(map[string]any)["gid_index"])
	}

	dur, _ := Parse(strings.NewReader(" Send Latency Test\n #bytes        #iterations       t_avg[usec]    tps average\n 2             11901            84.73          5900.98\n"))
	m = marshalMap(t, dur)
	if d := cmp.Diff(map[string]any{"bytes": 2.0, "iterations": 11901.0, "t_avg_us": 84.73, "tps": 5900.98}, m["lat"].([]any)[0]); d != "" || m["kind"] != "lat_duration" {
		t.Errorf("duration row (-want +got):\n%s kind %v", d, m["kind"])
	}

	bare, _ := ParseBare(strings.NewReader("1.5\n-nan\n"))
	m = marshalMap(t, bare)
	if m["kind"] != "bare" || m["value"] != nil || len(m["values"].([]any)) != 2 {
		t.Errorf("bare = %v", m)
	}
	bare, _ = ParseBare(strings.NewReader("1.500000\n"))
	if m = marshalMap(t, bare); m["value"] != 1.5 {
		t.Errorf("bare value = %v", m["value"])
	}

	res, err := ParseOutput(nil, []byte("Couldn't connect to 198.18.0.1:18547\n"))
	if err == nil {
		t.Fatal("no error")
	}
	m = marshalMap(t, res)
	e := m["error"].(map[string]any)
	if e["kind"] != "connect" || e["message"] != "Couldn't connect to 198.18.0.1:18547" || e["detail_kind"] != nil || m["kind"] != nil || m["header"] != nil {
		t.Errorf("error result = %v", m)
	}
	res, _ = ParseOutput(nil, []byte(" Gid index should be between 0 and 64\n Parser function exited with Error\n"))
	e = marshalMap(t, res)["error"].(map[string]any)
	if e["kind"] != "invalid_option" || e["detail_kind"] != "gid_index" {
		t.Errorf("GID index error = %v", e)
	}
}
