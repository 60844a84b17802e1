package limits

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The rows of shared/reference/limits.md (computed there independently):
// path MTU, η IPv4, η IPv4+VLAN, η IPv6 in %, then IPv4 goodput in Gbit/s
// at 25, 50, 100, 200, 400 and 800G.
var roceRows = []struct {
	mtu            int
	v4, vlan, v6   float64
	g25, g50, g100 float64
	g200, g400     float64
	g800           float64
}{
	{256, 75.74, 74.85, 71.51, 18.9, 37.9, 75.7, 151.5, 303.0, 605.9},
	{512, 86.20, 85.62, 83.39, 21.5, 43.1, 86.2, 172.4, 344.8, 689.6},
	{1024, 92.59, 92.25, 90.94, 23.1, 46.3, 92.6, 185.2, 370.3, 740.7},
	{2048, 96.15, 95.97, 95.26, 24.0, 48.1, 96.2, 192.3, 384.6, 769.2},
	{4096, 98.04, 97.94, 97.57, 24.5, 49.0, 98.0, 196.1, 392.1, 784.3},
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f (±%g)", what, got, want, tol)
	}
}

func eff(t *testing.T, s Stream) float64 {
	t.Helper()
	e, err := Efficiency(s)
	if err != nil {
		t.Fatalf("%v: %v", s, err)
	}
	return e
}

func TestRoCEEfficiencyTable(t *testing.T) {
	for _, r := range roceRows {
		near(t, "η v4", 100*eff(t, RoCE{PathMTU: r.mtu}), r.v4, 0.005)
		near(t, "η v4+VLAN", 100*eff(t, RoCE{PathMTU: r.mtu, Encap: Encap{VLANTags: 1}}), r.vlan, 0.005)
		near(t, "η v6", 100*eff(t, RoCE{PathMTU: r.mtu, Encap: Encap{IPv6: true}}), r.v6, 0.005)
		for _, g := range []struct {
			mbps int
			want float64
		}{{25000, r.g25}, {50000, r.g50}, {100000, r.g100}, {200000, r.g200}, {400000, r.g400}, {800000, r.g800}} {
			c := Path{LinkMbps: g.mbps}.Ceiling(RoCE{PathMTU: r.mtu})
			low, ok := c.Lowest()
			if !ok || low.Resource != Link {
				t.Fatalf("MTU %d at %d Mb/s: lowest %+v %v", r.mtu, g.mbps, low, ok)
			}
			near(t, "goodput", low.Gbps, g.want, 0.05)
		}
	}
}

func TestRoCEOverhead(t *testing.T) {
	for _, c := range []struct {
		e    Encap
		want int
	}{{Encap{}, 82}, {Encap{VLANTags: 1}, 86}, {Encap{VLANTags: 2}, 90}, {Encap{IPv6: true}, 102}, {Encap{IPv6: true, VLANTags: 1}, 106}} {
		if got := c.e.RoCEOverheadBytes(); got != c.want {
			t.Errorf("%v: %d B, want %d", c.e, got, c.want)
		}
	}
}

func TestRoCEMessages(t *testing.T) {
	// limits.md: single-packet WRITE with RETH, S/(S+98).
	near(t, "WRITE 64 B", 100*eff(t, RoCE{PathMTU: 1024, MessageBytes: 64, Verb: Write}), 39.5, 0.05)
	near(t, "WRITE 1024 B", 100*eff(t, RoCE{PathMTU: 1024, MessageBytes: 1024, Verb: Write}), 91.3, 0.05)
	// A 64 KiB WRITE at 4096: 16 packets, one RETH: just under P/(P+82).
	p, w, err := RoCE{PathMTU: 4096, MessageBytes: 65536, Verb: Write}.WireBytes()
	if err != nil || p != 65536 || w != 65536+16*82+16 {
		t.Errorf("64 KiB WRITE: payload %d wire %d %v", p, w, err)
	}
	// A message one byte over the MTU takes two packets.
	if n, _ := (RoCE{PathMTU: 1024, MessageBytes: 1025}).Packets(); n != 2 {
		t.Errorf("1025 B at 1024: %d packets", n)
	}
	// READ responses: AETH on the first and the last.
	_, w, _ = RoCE{PathMTU: 1024, MessageBytes: 4096, Verb: Read}.WireBytes()
	if w != 4096+4*82+8 {
		t.Errorf("READ 4 KiB wire %d", w)
	}
	_, w, _ = RoCE{PathMTU: 1024, MessageBytes: 2, Verb: SendImm}.WireBytes()
	if w != 2+82+4 {
		t.Errorf("SEND with immediate 2 B wire %d", w)
	}
}

func TestMessageRate(t *testing.T) {
	// limits.md: R/((S+82)·8): 100G, 64 B: 85.6 Mpps; 400G: 342.5 Mpps.
	for _, c := range []struct {
		mbps, want float64
	}{{100000, 85.6e6}, {400000, 342.5e6}} {
		got, err := MessageRate(RoCE{PathMTU: 4096, MessageBytes: 64}, c.mbps)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "message rate", got, c.want, 0.05e6)
	}
	if _, err := MessageRate(RoCE{PathMTU: 4096}, 0); !errors.Is(err, ErrInput) {
		t.Errorf("rate at 0 Mb/s: %v", err)
	}
}

// limits.md's UDP and TCP table: MTU, UDP payload, η UDP, MSS, η TCP, UDP
// goodput at 10, 25 and 100G.
func TestIPStreamTable(t *testing.T) {
	for _, r := range []struct {
		mtu, udp       int
		etaUDP         float64
		mss            int
		etaTCP         float64
		g10, g25, g100 float64
	}{
		{1500, 1472, 95.71, 1448, 94.15, 9.57, 23.93, 95.71},
		{4200, 4172, 98.44, 4148, 97.88, 9.84, 24.61, 98.44},
		{9000, 8972, 99.27, 8948, 99.00, 9.93, 24.82, 99.27},
	} {
		u := IPStream{MTU: r.mtu}
		if u.MaxUDPPayload() != r.udp {
			t.Errorf("MTU %d: UDP payload %d, want %d", r.mtu, u.MaxUDPPayload(), r.udp)
		}
		near(t, "η UDP", 100*eff(t, u), r.etaUDP, 0.005)
		tc := IPStream{MTU: r.mtu, Transport: TCP}
		if tc.MSS() != r.mss {
			t.Errorf("MTU %d: MSS %d, want %d", r.mtu, tc.MSS(), r.mss)
		}
		near(t, "η TCP", 100*eff(t, tc), r.etaTCP, 0.005)
		for _, g := range []struct {
			mbps int
			want float64
		}{{10000, r.g10}, {25000, r.g25}, {100000, r.g100}} {
			low, ok := Path{LinkMbps: g.mbps}.Ceiling(u).Lowest()
			if !ok {
				t.Fatal("no limit")
			}
			near(t, "UDP goodput", low.Gbps, g.want, 0.005)
		}
	}
}

func TestUDPFragments(t *testing.T) {
	// netperf -m 8000 at MTU 1500: 8008 B of IP payload in fragments of
	// 1480 (a multiple of 8): 5 × 1480 + 608.
	s := IPStream{MTU: 1500, MessageBytes: 8000}
	n, err := s.Fragments()
	if err != nil || n != 6 {
		t.Fatalf("fragments %d %v", n, err)
	}
	p, w, _ := s.WireBytes()
	if p != 8000 || w != 8008+6*(20+38) {
		t.Errorf("payload %d wire %d", p, w)
	}
	if !strings.Contains(s.String(), "6 IP fragments") {
		t.Errorf("String %q", s)
	}
	// -m 1400 at MTU 9000 sends small frames: the efficiency says so.
	near(t, "η -m 1400 at 9000", 100*eff(t, IPStream{MTU: 9000, MessageBytes: 1400}), 1400.0/(1400+28+38)*100, 1e-9)
	if _, err := (IPStream{MTU: 60}).Fragments(); !errors.Is(err, ErrInput) {
		t.Errorf("MTU 60: %v", err)
	}
	if _, err := (IPStream{MTU: 1200, Encap: Encap{IPv6: true}}).Fragments(); !errors.Is(err, ErrInput) {
		t.Errorf("IPv6 MTU 1200: %v", err)
	}
}

func TestPCIeArithmetic(t *testing.T) {
	perLane := map[float64]float64{2.5: 2.0, 5: 4.0, 8: 8 * 128.0 / 130, 16: 16 * 128.0 / 130, 32: 32 * 128.0 / 130}
	for gen, gt := range []float64{2.5, 5, 8, 16, 32} {
		for _, w := range []int{1, 2, 4, 8, 16} {
			p := PCIe{GTps: gt, Width: w}
			if p.Generation() != gen+1 {
				t.Errorf("%v: generation %d", p, p.Generation())
			}
			raw, err := p.RawGbps()
			if err != nil {
				t.Fatal(err)
			}
			near(t, p.String()+" raw", raw, perLane[gt]*float64(w), 1e-9)
			pay, _ := p.PayloadGbps()
			near(t, p.String()+" payload", pay, raw*256/280*0.95, 1e-9)
		}
	}
	// Published figures: Gen3 985 MB/s per lane, x16 126.0 Gbit/s; Gen5
	// x16 504.1 Gbit/s.
	raw, _ := PCIe{GTps: 8, Width: 16}.RawGbps()
	near(t, "Gen3 x16", raw, 126.03, 0.01)
	raw, _ = PCIe{GTps: 32, Width: 16}.RawGbps()
	near(t, "Gen5 x16", raw, 504.12, 0.01)
	pay, _ := PCIe{GTps: 8, Width: 16, MaxPayloadBytes: 512}.PayloadGbps()
	near(t, "Gen3 x16 MPS 512", pay, 126.03*512/536*0.95, 0.01)
	if _, err := (PCIe{GTps: 64, Width: 16}).RawGbps(); !errors.Is(err, ErrPCIeSpeed) {
		t.Errorf("Gen6: %v", err)
	}
	if _, err := (PCIe{GTps: 8, Width: 16, MaxPayloadBytes: 300}).PayloadGbps(); !errors.Is(err, ErrInput) {
		t.Errorf("MPS 300: %v", err)
	}
}

func TestParsePCIeSpeed(t *testing.T) {
	for in, want := range map[string]float64{
		"8.0 GT/s PCIe\n": 8, "16.0 GT/s PCIe": 16, "2.5 GT/s": 2.5, "5 GT/s": 5, "32.0 GT/s PCIe": 32,
		"Unknown": 0, "Unknown speed": 0, "": 0,
	} {
		got, err := ParsePCIeSpeed(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"fast", "-8 GT/s", "8.0 Gb/s", "NaN GT/s"} {
		if _, err := ParsePCIeSpeed(bad); !errors.Is(err, ErrInput) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestCeilingPCIeBinds(t *testing.T) {
	// A 100G NIC trained down to Gen3 x8 (of x16): PCIe binds at about 54.7.
	p := Path{LinkMbps: 100000, PCIe: PCIe{GTps: 8, Width: 8}, PCIeMax: PCIe{GTps: 8, Width: 16}}
	c := p.Ceiling(RoCE{PathMTU: 4096})
	low, ok := c.Lowest()
	if !ok || low.Resource != Bus {
		t.Fatalf("lowest %+v", low)
	}
	near(t, "x8 payload", low.Gbps, 63.015*256/280*0.95, 0.01)
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "below its maximum 8 GT/s x16") {
		t.Errorf("notes %q", c.Notes)
	}
	frac, l, ok := c.Fraction(50)
	if !ok || l.Resource != Bus {
		t.Fatalf("fraction %v %+v", frac, l)
	}
	near(t, "fraction", frac, 50/low.Gbps, 1e-12)
}

func TestCeilingWriteOnFullPCIe(t *testing.T) {
	// The example: WRITE at 92.6 Gbit/s, path MTU 4096, 100G link
	// on Gen4 x16: link-bound, 94 % of 98.0.
	c := Path{LinkMbps: 100000, PCIe: PCIe{GTps: 16, Width: 16}}.Ceiling(RoCE{PathMTU: 4096, Verb: Write})
	frac, low, ok := c.Fraction(92.6)
	if !ok || low.Resource != Link {
		t.Fatalf("%+v", c)
	}
	near(t, "ceiling", low.Gbps, 98.0, 0.05)
	near(t, "fraction", frac, 0.945, 0.001)
}

func TestCeilingUnknown(t *testing.T) {
	// virtio: no speed, no PCIe link of its own.
	c := Path{}.Ceiling(RoCE{PathMTU: 1024})
	if _, ok := c.Lowest(); ok {
		t.Errorf("a limit from nothing: %+v", c)
	}
	if len(c.Unknown) != 2 || !strings.Contains(c.Unknown[0], "link speed unknown") {
		t.Errorf("unknown %q", c.Unknown)
	}
	if _, _, ok := c.Fraction(1); ok {
		t.Error("fraction of nothing")
	}
	// A bad stream is said, not computed.
	c = Path{LinkMbps: 10000}.Ceiling(RoCE{PathMTU: 1500})
	if len(c.Limits) != 0 || !strings.Contains(strings.Join(c.Unknown, ";"), "path MTU 1500") {
		t.Errorf("%+v", c)
	}
	if _, _, ok := (Path{LinkMbps: 10000}.Ceiling(RoCE{PathMTU: 1024})).Fraction(math.NaN()); ok {
		t.Error("NaN fraction")
	}
}

func TestLower(t *testing.T) {
	a := Path{LinkMbps: 25000}.Ceiling(IPStream{MTU: 9000})
	b := Path{LinkMbps: 10000}.Ceiling(IPStream{MTU: 9000})
	l, ok := Lower(a, b)
	if !ok {
		t.Fatal("no limit")
	}
	near(t, "lower", l.Gbps, 9.93, 0.005)
	l, ok = Lower(a, Path{}.Ceiling(IPStream{MTU: 9000}))
	if !ok {
		t.Fatal("one known end: no limit")
	}
	near(t, "one known", l.Gbps, 24.82, 0.005)
	if _, ok := Lower(Ceiling{}, Ceiling{}); ok {
		t.Error("lower of nothing")
	}
}

func FuzzStreams(f *testing.F) {
	f.Add(1500, 8000, 4096, 65536, 0, false, 8.0, 16)
	f.Add(-1, -1, 0, -5, 9, true, 64.0, 0)
	f.Fuzz(func(t *testing.T, mtu, m, pmtu, s, vlan int, v6 bool, gt float64, width int) {
		e := Encap{IPv6: v6, VLANTags: vlan}
		for _, st := range []Stream{IPStream{Encap: e, MTU: mtu, MessageBytes: m}, IPStream{Encap: e, MTU: mtu, Transport: TCP},
			RoCE{Encap: e, PathMTU: pmtu, MessageBytes: s, Verb: Verb(vlan & 7)}} {
			x, err := Efficiency(st)
			if err == nil && !(x > 0 && x < 1) {
				t.Errorf("%v: efficiency %v", st, x)
			}
			_ = Path{LinkMbps: mtu, PCIe: PCIe{GTps: gt, Width: width}}.Ceiling(st)
		}
	})
}
