package rxe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/rocekit/rocekit/internal/warnjson"
)

// PortCounterText is port counters read from a command's text output
// (ParseRDMAStatistic, ParseCounterListing): one PortCounters per port, in
// the order they came. Time is left zero: set it before PortCounters.Sub.
type PortCounterText struct {
	Ports []PortCounters `json:"ports"`
	// Warnings are lines or tokens that are not counters, each a
	// LineWarning with its line (errors.As).
	Warnings warnjson.Errors `json:"warnings,omitempty"`
}

// ParseRDMAStatistic reads `rdma statistic show` output, whose counters
// are the hw_counters of each link (they go to HW), in any of its
// shapes: one line per link (the default), the -p form (a "link DEV/PORT"
// line, then one tab-indented "name value" line per counter), and either
// of them wrapped at arbitrary points (mail, terminals). A value that is
// not a number, or text before the first link, becomes a warning with its
// line number. It fails, wrapping ErrParse, when there is no link
// record or reading fails; the records read so far are kept.
//
// Similar to: rdma statistic show; rdma statistic show link mlx5_0/1 -p
func ParseRDMAStatistic(r io.Reader) (PortCounterText, error) {
	var out PortCounterText
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var cur *PortCounters
	var pending []byte // a counter name waiting for its value
	pendingLine, n := 0, 0
	wantLink := false // "link" seen, DEV/PORT next
	warn := func(line int, text string, err error) {
		out.Warnings = append(out.Warnings, LineWarning{Line: line, Text: text, Err: err})
	}
	for sc.Scan() {
		n++
		for _, tok := range bytes.Fields(sc.Bytes()) {
			switch {
			case wantLink:
				wantLink = false
				dev, port, err := parseLinkName(tok)
				if err != nil {
					warn(n, string(tok), err)
					cur = nil
					continue
				}
				out.Ports = append(out.Ports, PortCounters{Device: dev, Port: port, HW: map[string]uint64{}})
				cur = &out.Ports[len(out.Ports)-1]
			case pending == nil && string(tok) == "link":
				wantLink = true
			case cur == nil:
				warn(n, string(tok), fmt.Errorf("%w: %q before a link record", ErrParse, tok))
			case pending == nil:
				pending, pendingLine = bytes.Clone(tok), n
			default:
				v, err := strconv.ParseUint(string(tok), 10, 64)
				if err != nil {
					warn(n, string(tok), fmt.Errorf("%w: counter %s: value %q", ErrParse, pending, tok))
					// The token may be the next name: the value was lost.
					pending, pendingLine = bytes.Clone(tok), n
					if string(tok) == "link" {
						pending, wantLink = nil, true
					}
					continue
				}
				cur.HW[string(pending)] = v
				pending = nil
			}
		}
	}
	if pending != nil {
		warn(pendingLine, string(pending), fmt.Errorf("%w: counter %s has no value", ErrParse, pending))
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: rdma statistic line %d: %w", ErrParse, n+1, err)
	}
	if len(out.Ports) == 0 {
		return out, fmt.Errorf("%w: rdma statistic: no link record in %d lines", ErrParse, n)
	}
	return out, nil
}

// parseLinkName parses "mlx5_0/1".
func parseLinkName(tok []byte) (string, int, error) {
	i := bytes.LastIndexByte(tok, '/')
	if i <= 0 {
		return "", 0, fmt.Errorf("%w: link %q is not DEV/PORT", ErrParse, tok)
	}
	port, err := strconv.Atoi(string(tok[i+1:]))
	if err != nil || port < 0 {
		return "", 0, fmt.Errorf("%w: link %q is not DEV/PORT", ErrParse, tok)
	}
	return string(tok[:i]), port, nil
}
