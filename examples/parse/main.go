// Command parse reads one captured output of perftest or netperf (a file,
// or standard input), recognises the tool and the form, and prints the
// parsed result as JSON: what runbooks do with grep, awk and a spreadsheet.
//
//	go run ./examples/parse rocekittest/captures/trixie/perftest/send-bw-gbits/client.stdout
//	netperf -H 198.18.0.2 -t UDP_STREAM | go run ./examples/parse
//
// Exit status: 0 when the input was recognised (also when it is a tool's
// error message: the JSON then holds an "error" object), 3 when it was
// recognised but is cut short or garbled (the JSON holds what parsed and a
// "parse_error" object: kind "truncated" or "garbled", line, message), 2
// when it was not recognised, 1 when the input could not be read.
//
// The keys are a contract for scripts (see issue 3): perftest results carry
// tool, test, kind, header, bw or lat rows, value, warnings and error;
// netperf results carry tool, test, throughput_mbps, udp, trans_per_sec,
// omni, warnings and error. inf and nan become null with a warning.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rocekit/rocekit/internal/warnjson"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/perftest"
)

// usage is what -h prints.
const usage = `usage: parse [FILE]

Reads one perftest or netperf output (FILE, or standard input when FILE is
absent or "-") and prints it parsed, as JSON. Exit status: 0 recognised,
2 not recognised (or a usage error), 1 the input could not be read.
`

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Print(usage)
		return
	}
	if len(args) > 1 || (len(args) == 1 && len(args[0]) > 1 && args[0][0] == '-') {
		fmt.Fprintf(os.Stderr, "parse: unexpected %q\n%s", strings.Join(args, " "), usage)
		os.Exit(2)
	}
	in, err := openInput(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	// Up to streamAbove is read whole; a perftest output beyond that is
	// parsed as a stream, rows written as they come.
	data, err := io.ReadAll(io.LimitReader(in, streamAbove+1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	if len(data) > streamAbove && streamable(data[:1<<20]) {
		if err := parseStream(io.MultiReader(bytes.NewReader(data), in), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parse:", err)
			os.Exit(3)
		}
		return
	}
	if rest, err := io.ReadAll(in); err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	} else {
		data = append(data, rest...)
	}
	out, err := parse(data)
	if err != nil && out == nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(2)
	}
	os.Stdout.Write(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(3)
	}
}

func openInput(args []string) (io.Reader, error) {
	if len(args) == 0 || args[0] == "-" {
		return os.Stdin, nil
	}
	return os.Open(args[0])
}

// errUnrecognised says the input is neither tool's output.
var errUnrecognised = errors.New("input is not a perftest or netperf output this parser knows")

// parse recognises the input and returns its JSON, ending in a newline.
func parse(data []byte) ([]byte, error) {
	if perftest.Detect(data) != perftest.FormUnknown {
		res, err := parsePerftest(data)
		if res == nil {
			return nil, err
		}
		var pe *perftest.ParseError
		if !errors.As(err, &pe) {
			return marshal(res)
		}
		// Cut short or garbled: what parsed, and why it is not whole.
		b, merr := json.Marshal(res)
		if merr != nil {
			return nil, merr
		}
		var m map[string]any
		if merr := json.Unmarshal(b, &m); merr != nil {
			return nil, merr
		}
		kind := "garbled"
		if errors.Is(err, perftest.ErrTruncated) {
			kind = "truncated"
		}
		m["parse_error"] = map[string]any{"kind": kind, "line": pe.Line, "message": err.Error()}
		out, merr := marshal(m)
		if merr != nil {
			return nil, merr
		}
		return out, err
	}
	if netperf.Detect(data) != netperf.Form("") {
		res, err := netperf.Parse(bytes.NewReader(data))
		if res == nil && err != nil && !isToolError(err) {
			return nil, err
		}
		return marshal(netperfJSON(res, err))
	}
	return nil, errUnrecognised
}

// parsePerftest picks perftest's parser for the detected form. A failure
// the tool reported comes back inside the Result (its Failure field).
func parsePerftest(data []byte) (*perftest.Result, error) {
	switch perftest.Detect(data) {
	case perftest.FormBare:
		return perftest.ParseBare(bytes.NewReader(data))
	case perftest.FormJSON:
		return perftest.ParseJSON(bytes.NewReader(data))
	default:
		return perftest.ParseOutput(data, nil)
	}
}

func isToolError(err error) bool {
	var e *netperf.Error
	return errors.As(err, &e)
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// netperfOutput is the JSON contract of a netperf result.
type netperfOutput struct {
	Tool           string            `json:"tool"`
	Test           string            `json:"test,omitempty"`
	Form           string            `json:"form"`
	ThroughputMbps *float64          `json:"throughput_mbps"`
	Throughput     *float64          `json:"throughput,omitempty"` // as printed, in ThroughputUnit
	ThroughputUnit string            `json:"throughput_unit,omitempty"`
	TransPerSec    *float64          `json:"trans_per_sec,omitempty"`
	UDP            *udpOutput        `json:"udp,omitempty"`
	Omni           map[string]string `json:"omni,omitempty"`
	Version        string            `json:"version,omitempty"`
	Warnings       []string          `json:"warnings"`
	Error          *errorOutput      `json:"error,omitempty"`
}

type udpOutput struct {
	SendMbps   *float64 `json:"send_mbps"`
	RecvMbps   *float64 `json:"recv_mbps"`
	Sent       uint64   `json:"sent"`
	Received   uint64   `json:"received"`
	SendErrors *uint64  `json:"send_errors"`
	LossRatio  *float64 `json:"loss_ratio"`
}

type errorOutput struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// netperfJSON maps a netperf result (possibly partial) and its error to the
// contract. Values JSON cannot carry (inf, nan) become null with a warning.
func netperfJSON(res *netperf.Result, err error) netperfOutput {
	out := netperfOutput{Tool: "netperf", Warnings: []string{}}
	var tool *netperf.Error
	if errors.As(err, &tool) {
		out.Error = &errorOutput{Kind: string(tool.Kind), Message: tool.Message}
	} else if err != nil {
		out.Warnings = append(out.Warnings, err.Error())
	}
	if res == nil {
		return out
	}
	out.Test, out.Form, out.Version = res.Test, string(res.Form), res.Version
	out.Warnings = append(out.Warnings, warnjson.Strings(res.Warnings)...)
	finite := func(name string, v *float64) *float64 {
		if v == nil || !isFinite(*v) {
			if v != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s is %v: written as null", name, *v))
			}
			return nil
		}
		return v
	}
	out.ThroughputMbps = finite("throughput_mbps", res.ThroughputMbps)
	if res.Throughput != nil {
		out.Throughput = finite("throughput", &res.Throughput.Value)
		out.ThroughputUnit = string(res.Throughput.Unit)
	}
	out.TransPerSec = finite("trans_per_sec", res.TransPerSec)
	if u := res.UDP; u != nil {
		loss := u.LossRatio
		out.UDP = &udpOutput{
			SendMbps: finite("udp.send_mbps", u.SendMbps), RecvMbps: finite("udp.recv_mbps", u.RecvMbps),
			Sent: u.Sent, Received: u.Received, SendErrors: u.SendErrors,
			LossRatio: finite("udp.loss_ratio", &loss),
		}
	}
	if res.Omni != nil {
		out.Omni = map[string]string{}
		for i, s := range res.Omni.Selectors {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			out.Omni[name] = s.Value
		}
	}
	return out
}

func isFinite(f float64) bool { return f-f == 0 }
