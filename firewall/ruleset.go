package firewall

import (
	"errors"
	"fmt"
	"strings"
)

// ErrParse is wrapped by the parse errors of ParseNft and
// ParseIptablesSave.
var ErrParse = errors.New("firewall: cannot parse")

// Ruleset is the filter chains of one listing (nft list ruleset, or
// iptables-save), keyed by their qualified name.
type Ruleset struct {
	// Tool is "nft" or "iptables-save".
	Tool   string
	Chains map[string]*Chain
	// Order is the chain names in listing order.
	Order []string
}

// Chain is one chain: a base chain hooked on input, or one reached by
// jump and goto.
type Chain struct {
	Name   string // "inet filter input", "filter INPUT"
	Input  bool   // a base chain of the input hook (type filter)
	Policy string // "accept", "drop" ("" for a regular chain)
	Line   int    // where its policy is printed
	Rules  []Rule
}

// Rule is one rule as far as a port check needs it.
type Rule struct {
	Line int    // 1-based line in the listing
	Text string // the rule as printed, trimmed
	// Protos are the transport protocols it matches ("tcp", "udp"); nil
	// matches any.
	Protos []string
	// Ports are the destination ports it matches; nil matches any.
	Ports []PortRange
	// PortsUnknown is set when a port set is named (@set) or a service
	// name is unknown: it may or may not match.
	PortsUnknown bool
	// EstablishedOnly is set when it matches only established or related
	// connections, not the new ones a test opens.
	EstablishedOnly bool
	// Conditional is set when it matches on something else too: a source
	// address, an interface, a mark.
	Conditional bool
	// Verdict is "accept", "drop", "reject", "jump", "goto", "return" or
	// "" (no verdict: a counter, a log).
	Verdict string
	// Target is the chain of jump and goto.
	Target string
}

// PortRange is an inclusive range of ports.
type PortRange struct{ From, To int }

// Block is a rule or a policy that stops the port.
type Block struct {
	Chain string // the chain the rule is in
	Rule  string // the rule as printed, or "policy drop"
	Line  int
	// Certain is false when the rule has conditions the package cannot
	// judge (a source address, an interface, a named set).
	Certain bool
}

// String quotes the rule and says where it is.
func (b Block) String() string {
	s := fmt.Sprintf("%s: %s (line %d)", b.Chain, b.Rule, b.Line)
	if !b.Certain {
		s += ", under conditions"
	}
	return s
}

// match says whether r applies to a new connection to proto/port, and
// whether surely (no condition left unjudged).
func (r Rule) match(proto string, port int) (applies, certain bool) {
	if r.EstablishedOnly || (r.Protos != nil && !contains(r.Protos, proto)) {
		return false, false
	}
	certain = !r.Conditional
	if r.Ports == nil {
		return true, certain && !r.PortsUnknown
	}
	for _, p := range r.Ports {
		if port >= p.From && port <= p.To {
			return true, certain
		}
	}
	return r.PortsUnknown, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// maxDepth bounds jump and goto chains (the kernel's own limit is 16).
const maxDepth = 16

// Blocks returns what stops a new connection to proto ("tcp" or "udp")
// and port in every input base chain: the first drop or reject rule that
// surely applies, a chain policy of drop reached without an accept, and
// before them the drop or reject rules that may apply. None means the
// port gets through as far as the listing shows.
//
// Similar to: nft list ruleset | grep -E 'dport|policy'
func (rs Ruleset) Blocks(proto string, port int) []Block {
	var out []Block
	for _, name := range rs.Order {
		c := rs.Chains[name]
		if !c.Input {
			continue
		}
		verdict, maybe, _ := rs.follow(c, proto, port, 0)
		out = append(out, maybe...)
		switch {
		case verdict != nil:
			out = append(out, *verdict)
		case c.Policy == "drop" && !rs.accepts(c, proto, port):
			out = append(out, Block{Chain: c.Name, Rule: "policy drop", Line: c.Line, Certain: true})
		}
	}
	return out
}

// accepts reports whether the chain surely accepts the connection.
func (rs Ruleset) accepts(c *Chain, proto string, port int) bool {
	b, _, ended := rs.follow(c, proto, port, 0)
	return b == nil && ended
}

// follow returns the blocking verdict, the possible blocks, and whether
// the chain ended the packet's walk (accept, drop, reject, or a goto
// that did).
func (rs Ruleset) follow(c *Chain, proto string, port, depth int) (*Block, []Block, bool) {
	var maybe []Block
	if depth > maxDepth {
		return nil, nil, false
	}
	for _, r := range c.Rules {
		applies, certain := r.match(proto, port)
		if !applies {
			continue
		}
		switch r.Verdict {
		case "accept":
			if certain {
				return nil, maybe, true
			}
		case "drop", "reject":
			b := Block{Chain: c.Name, Rule: r.Text, Line: r.Line, Certain: certain}
			if certain {
				return &b, maybe, true
			}
			maybe = append(maybe, b)
		case "jump", "goto":
			t, ok := rs.Chains[r.Target]
			if !ok {
				continue
			}
			b, m, ended := rs.follow(t, proto, port, depth+1)
			maybe = append(maybe, m...)
			if ended && certain {
				return b, maybe, true
			}
			if b != nil {
				b.Certain = false // reached under a condition
				maybe = append(maybe, *b)
			}
			if r.Verdict == "goto" && certain {
				return nil, maybe, false // back to the base chain's policy
			}
		case "return":
			if certain {
				return nil, maybe, false
			}
		}
	}
	return nil, maybe, false
}

// tokens splits a rule into words, keeping { ... } sets as one token
// without their braces: "tcp dport { 22, 80 } accept" gives "tcp",
// "dport", "22, 80", "accept".
func tokens(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '{' {
			end := strings.IndexByte(s, '}')
			if end < 0 { // a set cut short: the rest is its content
				out = append(out, strings.TrimSpace(s[1:]))
				break
			}
			out = append(out, strings.TrimSpace(s[1:end]))
			s = s[end+1:]
			continue
		}
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end >= 0 {
				out = append(out, s[:end+2])
				s = s[end+2:]
				continue
			}
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
