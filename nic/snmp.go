package nic

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SNMP holds /proc/net/snmp: protocol ("Ip", "Udp", ...) → field → value.
// Values are signed because Tcp MaxConn is -1.
type SNMP map[string]map[string]int64

// ParseSNMP parses /proc/net/snmp, where each protocol has a line of field
// names and a line of values ("Udp: InDatagrams NoPorts ..." then "Udp: 2527
// 0 ..."). A malformed pair is an error naming its line; the protocols
// before it are returned.
//
// Not prometheus/procfs's Snmp (checked against v0.23.0): it reads
// another namespace through Proc(pid), but it lacks Udp MemErrors.
func ParseSNMP(r io.Reader) (SNMP, error) {
	out := SNMP{}
	sc := bufio.NewScanner(r)
	n := 0
	next := func() (string, []string, bool) {
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.TrimSpace(line) == "" {
				continue
			}
			proto, rest, ok := strings.Cut(line, ":")
			if !ok {
				return line, nil, false
			}
			return proto, strings.Fields(rest), true
		}
		return "", nil, false
	}
	for {
		proto, names, ok := next()
		if !ok {
			if proto != "" {
				return out, parseError("snmp", n, proto, fmt.Errorf("no ':'"))
			}
			break
		}
		proto2, values, ok := next()
		if !ok || proto2 != proto {
			return out, parseError("snmp", n, proto2, fmt.Errorf("want the values of %s", proto))
		}
		if len(values) != len(names) {
			return out, parseError("snmp", n, proto, fmt.Errorf("%d names, %d values", len(names), len(values)))
		}
		m := make(map[string]int64, len(names))
		for i, name := range names {
			v, err := strconv.ParseInt(values[i], 10, 64)
			if err != nil {
				return out, parseError("snmp", n, values[i], err)
			}
			m[name] = v
		}
		out[proto] = m
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%w: snmp: %w", ErrParse, err)
	}
	return out, nil
}

// UDPCounters are the Udp line of /proc/net/snmp, the ones `netstat -su`
// prints. The kernel counts a datagram dropped for a full receive buffer in
// both InErrors and RcvbufErrors.
type UDPCounters struct {
	InDatagrams  uint64 `json:"in_datagrams"`
	NoPorts      uint64 `json:"no_ports"`
	InErrors     uint64 `json:"in_errors"`
	OutDatagrams uint64 `json:"out_datagrams"`
	RcvbufErrors uint64 `json:"rcvbuf_errors"`
	SndbufErrors uint64 `json:"sndbuf_errors"`
	InCsumErrors uint64 `json:"in_csum_errors"`
	IgnoredMulti uint64 `json:"ignored_multi"`
	MemErrors    uint64 `json:"mem_errors"` // kernel 5.10 and later
}

// UDP returns the Udp counters.
func (s SNMP) UDP() (UDPCounters, error) {
	m, ok := s["Udp"]
	if !ok {
		return UDPCounters{}, fmt.Errorf("%w: snmp: no Udp line", ErrParse)
	}
	var u UDPCounters
	for name, dst := range map[string]*uint64{
		"InDatagrams": &u.InDatagrams, "NoPorts": &u.NoPorts, "InErrors": &u.InErrors, "OutDatagrams": &u.OutDatagrams,
		"RcvbufErrors": &u.RcvbufErrors, "SndbufErrors": &u.SndbufErrors, "InCsumErrors": &u.InCsumErrors,
		"IgnoredMulti": &u.IgnoredMulti, "MemErrors": &u.MemErrors,
	} {
		if v := m[name]; v > 0 {
			*dst = uint64(v)
		}
	}
	return u, nil
}

// Sub returns the growth of each counter since before (0 where a counter
// went down, as after a reset).
func (u UDPCounters) Sub(before UDPCounters) UDPCounters {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return UDPCounters{
		InDatagrams: d(u.InDatagrams, before.InDatagrams), NoPorts: d(u.NoPorts, before.NoPorts),
		InErrors: d(u.InErrors, before.InErrors), OutDatagrams: d(u.OutDatagrams, before.OutDatagrams),
		RcvbufErrors: d(u.RcvbufErrors, before.RcvbufErrors), SndbufErrors: d(u.SndbufErrors, before.SndbufErrors),
		InCsumErrors: d(u.InCsumErrors, before.InCsumErrors), IgnoredMulti: d(u.IgnoredMulti, before.IgnoredMulti),
		MemErrors: d(u.MemErrors, before.MemErrors),
	}
}

// UDPLoss attributes UDP datagrams lost in the host's stack, from a delta
// of UDPCounters (Sub).
type UDPLoss struct {
	ReceiveBuffer uint64 `json:"receive_buffer"` // RcvbufErrors: socket receive buffer full (raise -S / rmem_max)
	SendBuffer    uint64 `json:"send_buffer"`    // SndbufErrors: socket send buffer full
	Checksum      uint64 `json:"checksum"`       // InCsumErrors
	Memory        uint64 `json:"memory"`         // MemErrors: UDP memory limit (udp_mem)
	NoPort        uint64 `json:"no_port"`        // NoPorts: nobody listened
	OtherIn       uint64 `json:"other_in"`       // InErrors not explained above
}

// Loss attributes the datagrams counted in a delta.
func (u UDPCounters) Loss() UDPLoss {
	l := UDPLoss{ReceiveBuffer: u.RcvbufErrors, SendBuffer: u.SndbufErrors, Checksum: u.InCsumErrors,
		Memory: u.MemErrors, NoPort: u.NoPorts}
	if known := u.RcvbufErrors + u.InCsumErrors + u.MemErrors; u.InErrors > known {
		l.OtherIn = u.InErrors - known
	}
	return l
}

// Total is the number of datagrams lost, all causes.
func (l UDPLoss) Total() uint64 {
	return l.ReceiveBuffer + l.SendBuffer + l.Checksum + l.Memory + l.NoPort + l.OtherIn
}

// SNMP reads /proc/net/snmp of the namespace the Root's /proc shows (for a
// Handle's namespace use Handle.UDP).
//
// Similar to: netstat -s; cat /proc/net/snmp
func (r Root) SNMP() (SNMP, error) { return r.snmpAt("proc/net/snmp") }

func (r Root) snmpAt(name string) (SNMP, error) {
	f, err := r.fs().Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSNMP(f)
}
