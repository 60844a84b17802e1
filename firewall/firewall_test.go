package firewall

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func load(t *testing.T, name string) Ruleset {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parse := ParseNft
	if strings.HasSuffix(name, ".iptables-save") {
		parse = ParseIptablesSave
	}
	rs, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func blocks(rs Ruleset, proto string, port int) []string {
	var out []string
	for _, b := range rs.Blocks(proto, port) {
		out = append(out, b.String())
	}
	return out
}

func TestBlocksOnCaptures(t *testing.T) {
	for _, tc := range []struct {
		file  string
		proto string
		port  int
		want  []string
	}{
		{"nft-drop-netserver.nft", "tcp", 12865, []string{"inet filter input: tcp dport 12865 drop (line 5)"}},
		{"nft-drop-netserver.nft", "udp", 5555, []string{"inet filter input: udp dport 5000-6000 reject (line 6)"}},
		{"nft-drop-netserver.nft", "udp", 6001, nil},
		{"nft-drop-netserver.nft", "tcp", 18515, nil},
		{"iptables-policy-drop.iptables-save", "tcp", 12865, []string{"filter INPUT: policy drop (line 3)"}},
		{"iptables-policy-drop.iptables-save", "tcp", 22, nil},
		{"iptables-policy-drop.iptables-save", "udp", 7050, []string{"filter INPUT: -A INPUT -p udp -m multiport --dports 7000:7100 -j REJECT --reject-with icmp-port-unreachable (line 8)"}},
		{"iptables-policy-drop.nft", "tcp", 12865, []string{"ip filter INPUT: policy drop (line 3)"}},
		{"iptables-policy-drop.nft", "udp", 7000, []string{"ip filter INPUT: meta l4proto udp udp dport 7000-7100 counter packets 0 bytes 0 reject (line 6)"}},
		{"iptables-policy-drop.nft", "tcp", 22, nil},
		{"firewalld-public-zone.nft", "tcp", 12865, []string{"inet firewalld filter_INPUT: reject with icmpx admin-prohibited (line 8)"}},
		{"firewalld-public-zone.nft", "tcp", 9090, nil},
		{"firewalld-public-zone.nft", "udp", 22, []string{"inet firewalld filter_INPUT: reject with icmpx admin-prohibited (line 8)"}},
		{"empty.nft", "tcp", 12865, nil},
		{"empty.iptables-save", "tcp", 12865, nil},
	} {
		got := blocks(load(t, tc.file), tc.proto, tc.port)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s %s/%d:\n got %q\nwant %q", tc.file, tc.proto, tc.port, got, tc.want)
		}
	}
}

// TestConditionalRules: a drop under a condition the package cannot judge
// (an interface) is a possible block; a conditional accept does not let
// the port through.
func TestConditionalRules(t *testing.T) {
	rs, err := ParseNft(strings.NewReader("table inet t {\n\tchain in {\n\t\ttype filter hook input priority 0; policy drop;\n\t\tiifname \"eth1\" tcp dport 12865 drop\n\t\tip saddr 10.0.0.0/8 accept\n\t\ttcp dport @allowed accept\n\t}\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := blocks(rs, "tcp", 12865)
	want := []string{"inet t in: iifname \"eth1\" tcp dport 12865 drop (line 4), under conditions", "inet t in: policy drop (line 3)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"tcp dport 22 drop\n", "table inet {\n"} {
		if _, err := ParseNft(strings.NewReader(in)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseNft(%q) = %v", in, err)
		}
	}
	for _, in := range []string{"*filter\n-A INPUT -j DROP\n", "*filter\n:\n", "*filter\nbogus\n"} {
		if _, err := ParseIptablesSave(strings.NewReader(in)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseIptablesSave(%q) = %v", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"nft-drop-netserver.nft", "firewalld-public-zone.nft", "iptables-policy-drop.nft", "iptables-policy-drop.iptables-save"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(*strings.Reader) (Ruleset, error){
			func(r *strings.Reader) (Ruleset, error) { return ParseNft(r) },
			func(r *strings.Reader) (Ruleset, error) { return ParseIptablesSave(r) },
		} {
			rs, _ := parse(strings.NewReader(s))
			rs.Blocks("tcp", 12865)
			rs.Blocks("udp", 0)
		}
	})
}

func BenchmarkParseNft(b *testing.B) {
	data, err := os.ReadFile("testdata/firewalld-public-zone.nft")
	if err != nil {
		b.Fatal(err)
	}
	big := strings.Repeat(string(data), 100)
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if _, err := ParseNft(strings.NewReader(big)); err != nil {
			b.Fatal(err)
		}
	}
}
