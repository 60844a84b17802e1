package firewall

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ParseIptablesSave reads `iptables-save` (or ip6tables-save): the filter
// table's chains, INPUT marked Input with its policy. Other tables are
// skipped. A rule line it cannot read is an error naming it; the chains
// read before are kept.
//
// Similar to: iptables-save -t filter
func ParseIptablesSave(r io.Reader) (Ruleset, error) {
	rs := Ruleset{Tool: "iptables-save", Chains: map[string]*Chain{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	table := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || line == "COMMIT":
		case strings.HasPrefix(line, "*"):
			table = line[1:]
		case table != "filter":
		case strings.HasPrefix(line, ":"):
			f := strings.Fields(line[1:])
			if len(f) < 2 {
				return rs, fmt.Errorf("%w: line %d: chain %q", ErrParse, n, line)
			}
			c := &Chain{Name: "filter " + f[0], Line: n, Input: f[0] == "INPUT"}
			if f[1] != "-" {
				c.Policy = strings.ToLower(f[1])
			}
			rs.Chains[c.Name] = c
			rs.Order = append(rs.Order, c.Name)
		case strings.HasPrefix(line, "-A "):
			f := strings.Fields(line)
			if len(f) < 2 {
				return rs, fmt.Errorf("%w: line %d: rule %q", ErrParse, n, line)
			}
			c, ok := rs.Chains["filter "+f[1]]
			if !ok {
				return rs, fmt.Errorf("%w: line %d: rule of undeclared chain %s", ErrParse, n, f[1])
			}
			c.Rules = append(c.Rules, iptablesRule(n, line, f[2:]))
		default:
			return rs, fmt.Errorf("%w: line %d: %q", ErrParse, n, line)
		}
	}
	return rs, sc.Err()
}

// iptablesRule reads the matches and target of "-A CHAIN ARGS".
func iptablesRule(n int, text string, args []string) Rule {
	r := Rule{Line: n, Text: text}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch a {
		case "-p", "--protocol":
			r.Protos = []string{next}
			i++
		case "--dport", "--destination-port", "--dports", "--destination-ports":
			r.Ports, r.PortsUnknown = nftPorts(strings.ReplaceAll(next, ":", "-"))
			i++
		case "--ctstate", "--state":
			r.EstablishedOnly = !strings.Contains(next, "NEW") && !strings.Contains(next, "UNTRACKED")
			i++
		case "-m", "--comment", "--reject-with", "--log-prefix", "--limit":
			i++
		case "-j", "-g":
			i++
			switch next {
			case "ACCEPT", "DROP", "REJECT", "RETURN":
				r.Verdict = strings.ToLower(next)
			case "LOG", "NFLOG", "MARK", "CONNMARK", "":
			default:
				r.Verdict, r.Target = "jump", "filter "+next
				if a == "-g" {
					r.Verdict = "goto"
				}
			}
		default:
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "!") {
				r.Conditional = true
			}
		}
	}
	return r
}
