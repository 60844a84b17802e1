package netperf

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Outputs that are broken must come back as errors, never as a result with
// a warning: mangled variants of real captures (the lab's trixie guest).

func readCapture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../rocekittest/captures/trixie/netperf/" + name + "/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// brokenCases gives, for one real output and the throughput as printed in
// it, the output with that figure replaced by each broken spelling.
func brokenCases(t *testing.T) []struct{ name, in, want string } {
	var cases []struct{ name, in, want string }
	for _, c := range []struct{ capture, prefix, figure string }{
		{"tcp-stream", "", "158.60"},                // classic table
		{"udp-stream-k", "\nTHROUGHPUT=", "172.46"}, // -k THROUGHPUT
		{"tcp-stream-human", "", "173.38"},          // -O
	} {
		full := "\n" + readCapture(t, c.capture)
		if strings.Count(full, c.prefix+c.figure) != 1 {
			t.Fatalf("%s: %q is not printed once", c.capture, c.figure)
		}
		for _, b := range []struct{ name, figure, want string }{
			{"decimal-comma", strings.Replace(c.figure, ".", ",", 1), "decimal comma"},
			{"overflow", "1e309", "out of range"},
			{"negative", "-" + c.figure, "negative"},
		} {
			in := strings.Replace(full, c.prefix+c.figure, c.prefix+b.figure, 1)[1:]
			cases = append(cases, struct{ name, in, want string }{c.capture + "/" + b.name, in, b.want})
		}
	}
	return cases
}

func TestBrokenOutputsAreErrors(t *testing.T) {
	for _, c := range brokenCases(t) {
		res, err := Parse(strings.NewReader(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrParse) {
			t.Errorf("%s: err = %v, want a *ParseError", c.name, err)
			continue
		}
		if !strings.Contains(pe.Msg, c.want) {
			t.Errorf("%s: %q does not say %q", c.name, pe.Msg, c.want)
		}
		if res == nil {
			t.Errorf("%s: no Result beside the error", c.name)
		}
	}
}

// TestEscapesRemoved: an output that went through a coloured terminal or
// a CI log parses to the same figures, with a warning.
func TestEscapesRemoved(t *testing.T) {
	for name, figure := range map[string]float64{"tcp-stream": 158.60, "udp-stream-k": 172.46, "tcp-stream-human": 173.38} {
		plain := readCapture(t, name)
		var b strings.Builder
		for _, l := range strings.SplitAfter(plain, "\n") {
			if l != "" {
				b.WriteString("\x1b[1;32m" + strings.TrimSuffix(l, "\n") + "\x1b[0m\x1b]0;title\x07" + strings.TrimPrefix(l, strings.TrimSuffix(l, "\n")))
			}
		}
		res, err := Parse(strings.NewReader(b.String()))
		if err != nil || res.Throughput == nil || res.Throughput.Value != figure {
			t.Errorf("%s: %+v, %v; want throughput %v", name, res, err, figure)
			continue
		}
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0].Error(), "escape sequences") {
			t.Errorf("%s: warnings %v do not name the escapes", name, res.Warnings)
		}
	}
}

// TestCommandLineSkipped: an -O output pasted below the command that ran
// it ("kubectl exec … -- netperf …") reads the same as the output alone.
func TestCommandLineSkipped(t *testing.T) {
	plain := readCapture(t, "tcp-stream-human")
	for _, cmd := range []string{
		"$ kubectl exec -it netperf-client -- netperf -H 198.18.2.2 -t TCP_STREAM -l 2 -- -O THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE,PROTOCOL,DIRECTION\n",
		"root@client:~# /usr/bin/netperf -H 198.18.2.2 -t TCP_STREAM -- -O THROUGHPUT,THROUGHPUT_UNITS\n",
	} {
		want, err := Parse(strings.NewReader(plain))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(strings.NewReader(cmd + plain))
		if err != nil || got.Form != FormHuman || got.Omni == nil {
			t.Errorf("%q: %+v, %v", cmd, got, err)
			continue
		}
		if g, w := got.Omni.Map(), want.Omni.Map(); len(g) != len(w) || g["THROUGHPUT"] != "173.38" || g["DIRECTION"] != "Send" {
			t.Errorf("%q: selectors %v, want %v", cmd, g, w)
		}
		if len(got.Warnings) == 0 || !strings.Contains(got.Warnings[0].Error(), "command line skipped") {
			t.Errorf("%q: warnings %v", cmd, got.Warnings)
		}
	}
}

// TestNoResultIsAnError: an output that holds no result is one error,
// ErrNoResult, whatever the form; cut before its result it is also
// ErrTruncated.
func TestNoResultIsAnError(t *testing.T) {
	stream := readCapture(t, "tcp-stream")
	demo, err := os.ReadFile("testdata/loopback/tcp-stream-p0-v0-demo/client.stdout")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		in        string
		truncated bool
	}{
		{"banner only", stream[:strings.Index(stream, "\n")+1], true},
		{"interims only", string(demo[:strings.LastIndex(string(demo), "Interim")]), true},
	} {
		_, err := Parse(strings.NewReader(c.in))
		if !errors.Is(err, ErrNoResult) || errors.Is(err, ErrTruncated) != c.truncated {
			t.Errorf("%s: err = %v, want ErrNoResult (truncated %v)", c.name, err, c.truncated)
		}
	}
}

// TestCutInsideTheLastNumber: an output cut inside its last number
// ("158.6" of "158.60", no final newline) is truncated, not a smaller
// throughput; the whole line without its newline (a paste) still parses.
func TestCutInsideTheLastNumber(t *testing.T) {
	for _, c := range []struct{ capture, figure string }{
		{"tcp-stream", "158.60"},
		{"tcp-rr", ""},
		{"udp-stream", ""},
	} {
		full := readCapture(t, c.capture)
		lines := strings.Split(strings.TrimRight(full, "\n"), "\n")
		// The line holding the main figure: the first data line of RR
		// (its second line has only socket sizes), the last otherwise.
		k := len(lines) - 1
		if c.capture == "tcp-rr" {
			k--
		}
		fs := strings.Fields(lines[k])
		last := fs[len(fs)-1]
		end := strings.Index(full, lines[k]) + strings.LastIndex(lines[k], last) + len(last)
		for _, cut := range []int{end - 1, end - 2, end - 3} {
			in := full[:cut]
			res, err := Parse(strings.NewReader(in))
			if !errors.Is(err, ErrTruncated) {
				var got any
				if res != nil && res.Throughput != nil {
					got = res.Throughput.Value
				}
				t.Errorf("%s cut to %q: throughput %v, err %v; want ErrTruncated", c.capture, in[len(in)-12:], got, err)
			}
		}
		if _, err := Parse(strings.NewReader(full[:end])); err != nil && c.capture != "tcp-rr" {
			t.Errorf("%s without its final newline: %v", c.capture, err)
		}
	}
}
