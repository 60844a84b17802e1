package rxe

import (
	"encoding/json"
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/sysfs"
)

func TestParseGID(t *testing.T) {
	tests := []struct {
		in      string
		want    netip.Addr
		ipv4    string
		mapped  bool
		linkLoc bool
	}{
		// Real values from testdata/*/capture.txt.gz.
		{in: "fe80:0000:0000:0000:2c46:1cff:fee4:8c8d\n", want: netip.MustParseAddr("fe80::2c46:1cff:fee4:8c8d"), linkLoc: true},
		{in: "2001:0002:0000:0000:0000:0000:0000:0001", want: netip.MustParseAddr("2001:2::1")},
		{in: "0000:0000:0000:0000:0000:ffff:c612:1401\n", want: netip.MustParseAddr("::ffff:198.18.20.1"), ipv4: "198.18.20.1", mapped: true},
		{in: "0000:0000:0000:0000:0000:0000:0000:0000\n", want: netip.IPv6Unspecified()},
	}
	for _, tt := range tests {
		g, err := ParseGID(tt.in)
		if err != nil {
			t.Fatalf("ParseGID(%q): %v", tt.in, err)
		}
		if g.Addr() != tt.want {
			t.Errorf("ParseGID(%q) = %v, want %v", tt.in, g.Addr(), tt.want)
		}
		if got := g.String() + "\n"; sysfs.TrimNewline(tt.in)+"\n" != got {
			t.Errorf("String() = %q, want %q", got, tt.in)
		}
		ip, ok := g.IPv4()
		if ok != tt.mapped || g.IsIPv4Mapped() != tt.mapped || (ok && ip.String() != tt.ipv4) {
			t.Errorf("%q: IPv4() = %v, %v; want %q, %v", tt.in, ip, ok, tt.ipv4, tt.mapped)
		}
		if g.IsLinkLocal() != tt.linkLoc {
			t.Errorf("%q: IsLinkLocal() = %v", tt.in, g.IsLinkLocal())
		}
		if g.IsZero() != (tt.want == netip.IPv6Unspecified()) {
			t.Errorf("%q: IsZero() = %v", tt.in, g.IsZero())
		}
		if GIDFromAddr(tt.want.Unmap()) != g {
			t.Errorf("GIDFromAddr(%v) != %v", tt.want.Unmap(), g)
		}
	}
}

func TestParseGIDErrors(t *testing.T) {
	for _, in := range []string{
		"", "fe80::1", "fe80:0000:0000:0000:2c46:1cff:fee4:8c8", "fe80-0000:0000:0000:2c46:1cff:fee4:8c8d",
		"fe80:0000:0000:0000:2c46:1cff:fee4:8c8g", "fe80:0000:0000:0000:2c46:1cff:fee4:8c8d:",
	} {
		if _, err := ParseGID(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseGID(%q) error = %v, want ErrParse", in, err)
		}
	}
}

func TestGIDText(t *testing.T) {
	var g GID
	for in, want := range map[string]string{
		"198.18.20.1": "0000:0000:0000:0000:0000:ffff:c612:1401",
		"2001:2::1":   "2001:0002:0000:0000:0000:0000:0000:0001",
		"fe80:0000:0000:0000:5008:edff:fe3c:6b43": "fe80:0000:0000:0000:5008:edff:fe3c:6b43",
	} {
		if err := g.UnmarshalText([]byte(in)); err != nil {
			t.Fatal(err)
		}
		b, _ := g.MarshalText()
		if string(b) != want {
			t.Errorf("UnmarshalText(%q) then MarshalText = %q, want %q", in, b, want)
		}
	}
	if err := g.UnmarshalText([]byte("rxe0")); !errors.Is(err, ErrParse) {
		t.Errorf("UnmarshalText(rxe0) = %v", err)
	}
}

func TestPerftestIPv4(t *testing.T) {
	for s, want := range map[string]bool{
		"::ffff:198.18.20.1":  true,
		"ff0e::ffff:e000:1":   true, // IPv4-encoded multicast
		"ff0e::1:ffff:e000:1": false,
		"2001:2::1":           false,
		"fe80::1":             false,
	} {
		if got := GIDFromAddr(netip.MustParseAddr(s)).perftestIPv4(); got != want {
			t.Errorf("perftestIPv4(%s) = %v, want %v", s, got, want)
		}
	}
}

func FuzzParseGID(f *testing.F) {
	for _, s := range []string{
		"fe80:0000:0000:0000:2c46:1cff:fee4:8c8d\n",
		"0000:0000:0000:0000:0000:ffff:c612:1401",
		"0000:0000:0000:0000:0000:0000:0000:0000\n",
		"", "::1", "zzzz:0000:0000:0000:0000:ffff:c612:1401",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGID(s)
		if err != nil {
			return
		}
		g2, err := ParseGID(g.String())
		if err != nil || g2 != g {
			t.Fatalf("round trip of %q: %v, %v", s, g2, err)
		}
	})
}

func BenchmarkParseGID(b *testing.B) {
	in := "0000:0000:0000:0000:0000:ffff:c612:1401\n"
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParseGID(in); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGIDJSON(t *testing.T) {
	e := GIDEntry{Device: "rxe0", Port: 1, Index: 2, GID: GIDFromAddr(netip.MustParseAddr("198.18.20.1")), Type: GIDTypeRoCEv2, Netdev: "v0"}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"device":"rxe0","port":1,"index":2,"gid":"0000:0000:0000:0000:0000:ffff:c612:1401","type":"RoCE v2","netdev":"v0"}`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("JSON (-want +got):\n%s", d)
	}
	var back GIDEntry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != e {
		t.Errorf("round trip = %+v, want %+v", back, e)
	}
}
