package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The exit status contract (see the package doc), on real captures and
// mangled variants of them, one case or more per form. The command is
// built and run, so the test holds the status a shell sees.

const (
	capPerftest = "../../rocekittest/captures/trixie/perftest/"
	capNetperf  = "../../rocekittest/captures/trixie/netperf/"
	capLoopback = "../../netperf/testdata/loopback/"
)

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cutBefore is s up to (not including) the first sub.
func cutBefore(t testing.TB, s, sub string) string {
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("%q not in the capture", sub)
	}
	return s[:i]
}

func buildParse(t *testing.T) string {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "parse")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestExitStatusEveryForm(t *testing.T) {
	bin := buildParse(t)
	bwText := readFile(t, capPerftest+"send-bw-gbits/client.stdout")
	bwJSON := readFile(t, capPerftest+"send-bw-json/client.json")
	stream := readFile(t, capNetperf+"tcp-stream/client.stdout")
	keyval := readFile(t, capNetperf+"udp-stream-k/client.stdout")
	csv := readFile(t, capNetperf+"tcp-rr-csv/client.stdout")
	human := readFile(t, capNetperf+"tcp-stream-human/client.stdout")
	demo := readFile(t, capLoopback+"tcp-stream-demo/client.stdout")
	p0v0demo := readFile(t, capLoopback+"tcp-stream-p0-v0-demo/client.stdout")
	demoK := readFile(t, capLoopback+"tcp-stream-demo-k/client.stdout")
	for _, c := range []struct {
		name   string
		in     string
		status int
		kind   string // parse_error's kind when status is 3
	}{
		{"perftest text", bwText, 0, ""},
		{"perftest text cut in the header", cutBefore(t, bwText, " Mtu "), 3, "truncated"},
		{"perftest text cut after the table header", cutBefore(t, bwText, " 65536 "), 3, "truncated"},
		{"perftest --out_json", bwJSON, 0, ""},
		{"perftest --out_json cut inside test_info", cutBefore(t, bwJSON, `"Mtu"`), 3, ""},
		{"perftest bare --output", readFile(t, capPerftest+"send-bw-output-bw/client.stdout"), 0, ""},
		{"perftest failure", readFile(t, capPerftest+"send-bw-noserver/client.stderr"), 0, ""},
		{"netperf classic", stream, 0, ""},
		{"netperf classic cut after the titles", cutBefore(t, stream, "131072"), 3, "truncated"},
		{"netperf classic banner only", cutBefore(t, stream, "Recv"), 3, "truncated"},
		{"netperf classic decimal comma", strings.Replace(stream, "158.60", "158,60", 1), 3, "garbled"},
		{"netperf classic 1e309", strings.Replace(stream, "158.60", "1e309", 1), 3, "garbled"},
		{"netperf classic negative", strings.Replace(stream, "158.60", "-158.60", 1), 3, "garbled"},
		{"netperf classic in colours", "\x1b[1m" + strings.ReplaceAll(stream, "\n", "\x1b[0m\n"), 0, ""},
		{"netperf -k", keyval, 0, ""},
		{"netperf -k 1e309", strings.Replace(keyval, "THROUGHPUT=172.46", "THROUGHPUT=1e309", 1), 3, "garbled"},
		{"netperf -k decimal comma", strings.Replace(keyval, "THROUGHPUT=172.46", "THROUGHPUT=172,46", 1), 3, "garbled"},
		{"netperf -o", csv, 0, ""},
		{"netperf -o header without values", cutBefore(t, csv, "372,"), 3, "truncated"},
		{"netperf -O", human, 0, ""},
		{"netperf -O after its command", "$ kubectl exec client -- netperf -H 198.18.2.2 -t TCP_STREAM -- -O THROUGHPUT,THROUGHPUT_UNITS\n" + human, 0, ""},
		{"netperf -O without its value row", cutBefore(t, human, "173.38"), 3, "truncated"},
		{"netperf -D", demo, 0, ""},
		{"netperf -D -k", demoK, 0, ""},
		{"netperf -P 0 -v 0 -D", p0v0demo, 0, ""},
		{"netperf -P 0 -v 0 -D cut before the result", p0v0demo[:strings.LastIndex(p0v0demo, "Interim")], 3, "truncated"},
		{"netperf failure", readFile(t, capNetperf+"noserver/client.stdout"), 0, ""},
		{"not an output", readFile(t, "../../README.md"), 2, ""},
		{"empty", "", 2, ""},
	} {
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(c.in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != c.status {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, status, c.status, stderr.String())
			continue
		}
		if status == 2 {
			continue
		}
		var got struct {
			Tool       string `json:"tool"`
			ParseError *struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"parse_error"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Tool == "" {
			t.Errorf("%s: stdout is not a result: %v\n%s", c.name, err, stdout.Bytes())
			continue
		}
		switch {
		case status == 0 && got.ParseError != nil:
			t.Errorf("%s: exit 0 with a parse_error %+v", c.name, *got.ParseError)
		case status == 3 && got.ParseError == nil:
			t.Errorf("%s: exit 3 without a parse_error", c.name)
		case status == 3 && c.kind != "" && got.ParseError.Kind != c.kind:
			t.Errorf("%s: parse_error kind %q, want %q (%s)", c.name, got.ParseError.Kind, c.kind, got.ParseError.Message)
		}
	}
}

// TestCutOutputsNeverPass: an output cut anywhere before its result is
// never a complete result (exit 0): every cut of a perftest header and of
// a --out_json before its results, and of netperf tables before their
// data line, is an error (status 2 when too little is left to tell the
// tool, else 3).
func TestCutOutputsNeverPass(t *testing.T) {
	for _, c := range []struct{ path, before string }{
		{capPerftest + "send-bw-gbits/client.stdout", " 65536 "},
		{capPerftest + "send-lat/client.stdout", " 2       "},
		{capPerftest + "send-bw-json/client.json", `"results"`},
		{capNetperf + "tcp-stream/client.stdout", "131072"},
		{capNetperf + "tcp-rr/client.stdout", "\n16384"},
	} {
		full := readFile(t, c.path)
		end := strings.Index(full, c.before)
		if end < 0 {
			t.Fatalf("%s: %q not found", c.path, c.before)
		}
		for i := 1; i < end; i++ {
			out, err := parse([]byte(full[:i]))
			if err == nil {
				t.Errorf("%s cut at byte %d (%q): no error, exit 0\n%s", c.path, i, full[max(0, i-20):i], out)
				break
			}
		}
	}
}

// TestNeverReadWhole: /dev/zero and a long stream of anything give a clear
// error, not an exhausted memory: parse reads at most its bounds.
func TestNeverReadWhole(t *testing.T) {
	for name, r := range map[string]io.Reader{
		"zeros":   io.LimitReader(zeros{}, 64<<20),
		"letters": io.LimitReader(repeatReader("not netperf at all\n"), 64<<20),
	} {
		var out bytes.Buffer
		err := parseTo(r, &out)
		if exitStatus(err) != exitUnrecognised || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s: status %d, err %v", name, exitStatus(err), err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type repeatReader string

func (r repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n+len(r) <= len(p) {
		n += copy(p[n:], r)
	}
	if n == 0 {
		return copy(p, r), nil
	}
	return n, nil
}

// TestNetperfInterims: the interim lines of a -D run are in the JSON, in
// order, with the result after them.
func TestNetperfInterims(t *testing.T) {
	out, err := parse([]byte(readFile(t, capLoopback+"tcp-stream-demo/client.stdout")))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Interims []struct {
			Value       float64 `json:"value"`
			Unit        string  `json:"unit"`
			IntervalSec float64 `json:"interval_sec"`
		} `json:"interims"`
		ThroughputMbps float64 `json:"throughput_mbps"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []float64{13441.39, 13303.31, 17546.19} // as printed
	if len(got.Interims) != len(want) || got.ThroughputMbps != 14474.66 {
		t.Fatalf("interims %+v, throughput %v", got.Interims, got.ThroughputMbps)
	}
	for i, w := range want {
		if g := got.Interims[i]; g.Value != w || g.Unit != "10^6bits/s" || g.IntervalSec <= 0 {
			t.Errorf("interim %d: %+v, want %v 10^6bits/s", i, g, w)
		}
	}
}
