package firewall

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseNft reads `nft list ruleset` (also with -a: "# handle N" comments
// are dropped). Sets, maps and flowtables are skipped; chains of every
// table are kept, and those of type filter on the input hook are marked
// Input. Lines it cannot place are an error naming them; the chains read
// before are kept.
//
// Similar to: nft list ruleset
func ParseNft(r io.Reader) (Ruleset, error) {
	rs := Ruleset{Tool: "nft", Chains: map[string]*Chain{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var table string
	var chain *Chain
	skip := 0 // depth inside a set, map or flowtable
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, " # handle "); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case skip > 0:
			skip += strings.Count(line, "{") - strings.Count(line, "}")
		case strings.HasPrefix(line, "table ") && strings.HasSuffix(line, "{"):
			f := strings.Fields(strings.TrimSuffix(line, "{"))
			if len(f) != 3 {
				return rs, fmt.Errorf("%w: line %d: table %q", ErrParse, n, line)
			}
			table = f[1] + " " + f[2]
		case strings.HasPrefix(line, "chain ") && strings.HasSuffix(line, "{"):
			name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "chain "), "{"))
			chain = &Chain{Name: name}
			rs.Chains[table+" "+name] = chain
			rs.Order = append(rs.Order, table+" "+name)
			chain.Name = table + " " + name
		case strings.HasPrefix(line, "set "), strings.HasPrefix(line, "map "), strings.HasPrefix(line, "flowtable "), strings.HasPrefix(line, "counter "), strings.HasPrefix(line, "quota "), strings.HasPrefix(line, "ct helper "):
			if strings.HasSuffix(line, "{") {
				skip = 1
			}
		case line == "}":
			if chain != nil {
				chain = nil
			} else {
				table = ""
			}
		case chain == nil:
			return rs, fmt.Errorf("%w: line %d: %q outside a chain", ErrParse, n, line)
		case strings.HasPrefix(line, "type "):
			chain.Input = strings.Contains(line, " hook input ") && strings.HasPrefix(line, "type filter ")
			if i := strings.Index(line, "policy "); i >= 0 {
				chain.Policy = strings.Trim(line[i+len("policy "):], "; ")
			}
			chain.Line = n
		default:
			chain.Rules = append(chain.Rules, nftRule(n, line, table))
		}
	}
	return rs, sc.Err()
}

// nftRule reads the parts of a rule a port check needs.
func nftRule(n int, text, table string) Rule {
	r := Rule{Line: n, Text: text}
	t := tokens(text)
	for i := 0; i < len(t); i++ {
		w := t[i]
		next := ""
		if i+1 < len(t) {
			next = t[i+1]
		}
		switch {
		case (w == "tcp" || w == "udp") && (next == "dport" || next == "sport"):
			r.Protos = []string{w}
			if next == "dport" && i+2 < len(t) {
				r.Ports, r.PortsUnknown = nftPorts(t[i+2])
				i += 2
			} else {
				r.Conditional = true
				i += 2
			}
		case w == "l4proto" || w == "protocol" || w == "nexthdr":
			r.Protos = nftProtos(next)
			i++
		case w == "ct" && next == "state" && i+2 < len(t):
			st := t[i+2]
			r.EstablishedOnly = !strings.Contains(st, "new") && !strings.Contains(st, "untracked")
			i += 2
		case w == "accept" || w == "drop" || w == "reject" || w == "return":
			r.Verdict = w
		case (w == "jump" || w == "goto") && next != "":
			r.Verdict, r.Target = w, table+" "+next
			i++
		case w == "counter", w == "packets", w == "bytes", w == "meta", w == "with", w == "icmpx", w == "icmp", w == "icmpv6", w == "type", w == "log", w == "prefix", w == "limit", w == "rate":
		case isNumber(w) || strings.HasPrefix(w, `"`) || strings.Contains(w, "/"):
		case r.Verdict == "reject":
		default:
			r.Conditional = true
		}
	}
	return r
}

// nftPorts reads a dport value: "22", "5000-6000", "22, 18515", "ssh",
// "@set". A named set or an unknown service makes the ports unknown.
func nftPorts(v string) ([]PortRange, bool) {
	if strings.HasPrefix(v, "@") {
		return nil, true
	}
	var out []PortRange
	unknown := false
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, ok1 := portNumber(lo)
		b := a
		ok2 := true
		if isRange {
			b, ok2 = portNumber(hi)
		}
		if !ok1 || !ok2 {
			unknown = true
			continue
		}
		out = append(out, PortRange{a, b})
	}
	if out == nil && !unknown {
		unknown = true
	}
	if out == nil {
		return []PortRange{}, unknown
	}
	return out, unknown
}

// nftProtos reads "tcp", "{ tcp, udp }" (as one token "tcp, udp"),
// leaving out non-transport ones (icmp).
func nftProtos(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// services are the names nft and iptables print for well-known ports.
var services = map[string]int{"ssh": 22, "domain": 53, "bootps": 67, "bootpc": 68, "tftp": 69, "http": 80,
	"https": 443, "dhcpv6-client": 546, "dhcpv6-server": 547, "netperf": 12865}

func portNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 65535 {
		return n, true
	}
	n, ok := services[s]
	return n, ok
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
