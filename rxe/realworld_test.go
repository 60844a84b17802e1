package rxe

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realworldRDMA is the real-world corpus of show_gids and rdma statistic
// outputs (testdata/realworld/README.md).
const realworldRDMA = "../testdata/realworld/rdma"

func readRealworld(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realworldRDMA, name, "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantEntry is a show_gids row as printed: DEV PORT INDEX GID (as an
// address) VER DEV.
type wantEntry struct {
	dev    string
	port   int
	index  int
	addr   string
	ver    string
	netdev string
}

func (w wantEntry) check(t *testing.T, what string, e GIDEntry) {
	t.Helper()
	if e.Device != w.dev || e.Port != w.port || e.Index != w.index || e.GID != GIDFromAddr(netip.MustParseAddr(w.addr)) ||
		e.Type.Version() != w.ver || e.Netdev != w.netdev {
		t.Errorf("%s entry %+v (%s), want %+v", what, e, e.GID.Addr(), w)
	}
}

var showGIDsCases = []struct {
	name           string
	tables, rows   int
	found          int // -1: no n_gids_found line
	warnings       int
	first, last    wantEntry
	rocev2, score  int // index SelectGID picks on the first table; -1: ErrNoGID
	firstTableSize int
}{
	{name: "show_gids-mlx5-cx4lx-k8s-pod-empty", found: 0, rocev2: -1, score: -1},
	{name: "show_gids-mlx5-cx6-two-link-local", tables: 1, rows: 6, found: 6,
		first:  wantEntry{"mlx5_0", 1, 0, "fe80::e42:a1ff:fe5d:4db8", "v1", "ens1f0"},
		last:   wantEntry{"mlx5_0", 1, 5, "::ffff:172.19.0.60", "v2", "ens1f0"},
		rocev2: 5, score: 5, firstTableSize: 6},
	{name: "show_gids-mlx5-a100-four-devices-indented", tables: 2, rows: 8, found: -1, warnings: 1,
		first:  wantEntry{"mlx5_0", 1, 0, "fe80::a288:c2ff:fe5b:3ec", "v1", "ens3np0"},
		last:   wantEntry{"mlx5_1", 1, 3, "::ffff:11.0.0.73", "v2", "ens2np0"},
		rocev2: 3, score: 3, firstTableSize: 4},
	{name: "show_gids-mlx5-bond-vxlan", tables: 1, rows: 6, found: -1, warnings: 1,
		first:  wantEntry{"mlx5_bond_0", 1, 0, "fe80::ac0:ebff:fe79:391a", "v1", "bond1"},
		last:   wantEntry{"mlx5_bond_0", 1, 5, "::ffff:30.153.10.175", "v2", "bond1"},
		rocev2: 3, score: 3, firstTableSize: 6}, // the VXLAN device's entry, not bond1's
	{name: "show_gids-rocep-ipv6-only-mi355", tables: 5, rows: 10, found: -1, warnings: 1,
		first:  wantEntry{"rocep105s0", 1, 0, "fe80::690:81ff:fe39:e3e8", "v2", "enp105s0"},
		last:   wantEntry{"rocep193s0f0", 1, 1, "fe80::7ec2:55ff:feba:ff88", "v2", "enp193s0f0np0"},
		rocev2: -1, score: 1, firstTableSize: 2}, // the ULA fd93:… GID
	{name: "show_gids-mlx5-k8s-macvlan-index4", tables: 3, rows: 9, found: -1, warnings: 1,
		first:  wantEntry{"mlx5_0", 1, 4, "fe80::a4ed:ccff:fe8b:1994", "v1", "net1"},
		last:   wantEntry{"mlx5_2", 1, 4, "fe80::90ea:b5ff:fec5:3f24", "v1", "net3"},
		rocev2: 7, score: 7, firstTableSize: 4},
	{name: "show_gids-mlx5-husky-rdma0", tables: 1, rows: 4, found: 4,
		first:  wantEntry{"mlx5_0", 1, 0, "fe80::ac0:ebff:fe21:3da", "v1", "rdma0"},
		last:   wantEntry{"mlx5_0", 1, 3, "::ffff:192.168.211.242", "v2", "rdma0"},
		rocev2: 3, score: 3, firstTableSize: 4},
	{name: "show_gids-mlx4-mlx5-vlan-tensorflow", tables: 3, rows: 9, found: 9,
		first:  wantEntry{"mlx4_0", 1, 0, "fe80::202:c9ff:feb3:8421", "v1", "eth2"},
		last:   wantEntry{"mlx5_0", 1, 3, "::ffff:12.12.11.12", "v2", "eth4"},
		rocev2: -1, score: 1, firstTableSize: 3}, // ConnectX-3 is RoCE v1 only
	{name: "show_gids-mlx5-ib-mitosis", tables: 2, rows: 2, found: 2,
		first:  wantEntry{"mlx5_0", 1, 0, "fe80::ec0d:9a03:ca:2f4c", "v1", ""},
		last:   wantEntry{"mlx5_1", 1, 0, "fe80::ec0d:9a03:78:6376", "v1", ""},
		rocev2: -1, score: 0, firstTableSize: 1},
}

// TestRealworldShowGIDs parses every show_gids output of the corpus and
// picks the RoCE v2 IPv4 index the way a user would from that text.
func TestRealworldShowGIDs(t *testing.T) {
	for _, tc := range showGIDsCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ParseShowGIDs(bytesReader(readRealworld(t, tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Tables) != tc.tables || out.Entries() != tc.rows || len(out.Warnings) != tc.warnings {
				t.Errorf("%d tables, %d rows, warnings %v; want %d, %d, %d", len(out.Tables), out.Entries(), out.Warnings, tc.tables, tc.rows, tc.warnings)
			}
			if tc.found < 0 && out.HasFound || tc.found >= 0 && (!out.HasFound || out.Found != tc.found) {
				t.Errorf("n_gids_found %d (%v), want %d", out.Found, out.HasFound, tc.found)
			}
			if len(out.Tables) == 0 {
				return
			}
			first := out.Tables[0]
			lastT := out.Tables[len(out.Tables)-1]
			tc.first.check(t, "first", first.Entries[0])
			tc.last.check(t, "last", lastT.Entries[len(lastT.Entries)-1])
			if len(first.Entries) != tc.firstTableSize {
				t.Errorf("first table has %d entries, want %d", len(first.Entries), tc.firstTableSize)
			}
			if got, ok := out.Table(tc.last.dev, tc.last.port); !ok || got.Device != lastT.Device {
				t.Errorf("Table(%s, %d) = %v", tc.last.dev, tc.last.port, ok)
			}
			if tc.name == "show_gids-mlx4-mlx5-vlan-tensorflow" {
				// mlx4_0 port 2 and mlx5_0 come as tables of their own.
				vlan, _ := first.Entry(2)
				p2, ok2 := out.Table("mlx4_0", 2)
				m5, ok5 := out.Table("mlx5_0", 1)
				sel, err := SelectGID(m5, SelectOptions{Policy: PolicyRoCEv2IPv4})
				if vlan.Netdev != "eth2.10" || !ok2 || len(p2.Entries) != 2 || !ok5 || err != nil || sel.Entry.Index != 3 {
					t.Errorf("VLAN %+v; port 2 %v %+v; mlx5_0 %v index %d %v", vlan, ok2, p2.Entries, ok5, sel.Entry.Index, err)
				}
			}
			for pol, want := range map[Policy]int{PolicyRoCEv2IPv4: tc.rocev2, PolicyPerftestScore: tc.score} {
				sel, err := SelectGID(first, SelectOptions{Policy: pol})
				switch {
				case want < 0 && !errors.Is(err, ErrNoGID):
					t.Errorf("%v: %+v, %v; want ErrNoGID", pol, sel.Entry, err)
				case want >= 0 && (err != nil || sel.Entry.Index != want):
					t.Errorf("%v: index %d (%v), want %d", pol, sel.Entry.Index, err, want)
				}
			}
		})
	}
}

// TestRealworldCorpusListed fails for a corpus folder without a table row.
func TestRealworldCorpusListed(t *testing.T) {
	ents, err := os.ReadDir(realworldRDMA)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, c := range showGIDsCases {
		listed = append(listed, c.name)
	}
	for _, c := range rdmaStatisticCases {
		listed = append(listed, c.name)
	}
	listed = append(listed, counterListingCases...)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if !slices.Contains(listed, e.Name()) {
			t.Errorf("%s has no expected values in realworld_test.go", e.Name())
		}
		if _, err := os.Stat(filepath.Join(realworldRDMA, e.Name(), "source.json")); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

var rdmaStatisticCases = []struct {
	name        string
	ports       int
	dev         string
	port        int
	counters    int
	first, last string
}{
	{"rdma-statistic-mlx5-2019-mail", 1, "mlx5_0", 1, 21, "rx_write_requests", "np_cnp_sent"},
	{"rdma-statistic-p-mlx5-2019-mail", 1, "mlx5_0", 1, 21, "rx_write_requests", "np_cnp_sent"},
}

// TestRealworldRDMAStatistic parses `rdma statistic show`, wrapped by a
// mail and in its -p form, to the same counters.
func TestRealworldRDMAStatistic(t *testing.T) {
	for _, tc := range rdmaStatisticCases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ParseRDMAStatistic(bytesReader(readRealworld(t, tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Ports) != tc.ports || len(st.Warnings) != 0 {
				t.Fatalf("%d ports, warnings %v", len(st.Ports), st.Warnings)
			}
			p := st.Ports[0]
			if p.Device != tc.dev || p.Port != tc.port || len(p.HW) != tc.counters {
				t.Errorf("%s/%d with %d counters", p.Device, p.Port, len(p.HW))
			}
			for _, n := range []string{tc.first, tc.last} {
				if v, src, ok := p.Counter(n); !ok || v != 0 || src != SourceHW {
					t.Errorf("%s = %d %s %v", n, v, src, ok)
				}
			}
			// Every counter has a class; the three kinds of problem are all there.
			classes := map[CounterClass]int{}
			for n := range p.HW {
				classes[ClassifyCounter(n)]++
			}
			if classes[ClassTraffic] != 3 || classes[ClassRetransmission] != 6 || classes[ClassCongestion] != 4 || classes[ClassError] != 8 {
				t.Errorf("classes %v", classes)
			}
		})
	}
}

var counterListingCases = []string{
	"counters-listing-mlx5-saturated-gpud",
	"hw_counters-listing-hfi1-omnipath-netdata",
	"counters-listing-i40iw-no-pma",
}

// TestRealworldCounterListings parses shell listings of counter files:
// mlx5 PMA counters stuck at the top of their width (4-bit
// excessive_buffer_overrun_errors at 15 too), hfi1's own
// hw_counters names, and i40iw's "N/A (no PMA)".
func TestRealworldCounterListings(t *testing.T) {
	t.Run("counters-listing-mlx5-saturated-gpud", func(t *testing.T) {
		l, err := ParseCounterListing(bytesReader(readRealworld(t, counterListingCases[0])), SourcePMA)
		if err != nil || len(l.Ports) != 1 || len(l.Warnings) != 0 {
			t.Fatalf("%+v, %v", l, err)
		}
		c := l.Ports[0]
		if c.Device != "" || len(c.PMA) != 21 || c.HW != nil {
			t.Errorf("%s/%d: %d PMA, HW %v", c.Device, c.Port, len(c.PMA), c.HW)
		}
		for name, want := range map[string]uint64{"port_xmit_wait": 4294967295, "link_downed": 255, "port_xmit_discards": 65535,
			"excessive_buffer_overrun_errors": 15, "port_rcv_switch_relay_errors": 2, "unicast_xmit_packets": 242071897216} {
			if c.PMA[name] != want {
				t.Errorf("%s = %d, want %d", name, c.PMA[name], want)
			}
		}
		if x, r, ok := c.DataBytes(); !ok || x != 4*205143497464492 || r != 4*205128687774249 {
			t.Errorf("DataBytes %d %d %v", x, r, ok)
		}
		zero := PortCounters{PMA: map[string]uint64{}}
		for n := range c.PMA {
			zero.PMA[n] = 0
		}
		d, err := c.Sub(zero)
		if err != nil {
			t.Fatal(err)
		}
		var saturated, problems []string
		for _, x := range d.Counters {
			if x.Saturated {
				saturated = append(saturated, x.Name)
			}
		}
		for _, x := range d.Problems() {
			problems = append(problems, x.Name)
		}
		if !slices.Equal(saturated, []string{"excessive_buffer_overrun_errors", "link_downed", "port_xmit_discards", "port_xmit_wait"}) {
			t.Errorf("saturated %v", saturated)
		}
		if !slices.Equal(problems, []string{"excessive_buffer_overrun_errors", "link_downed", "port_rcv_switch_relay_errors", "port_xmit_discards", "port_xmit_wait"}) {
			t.Errorf("problems %v", problems)
		}
	})
	t.Run("hw_counters-listing-hfi1-omnipath-netdata", func(t *testing.T) {
		l, err := ParseCounterListing(bytesReader(readRealworld(t, counterListingCases[1])), SourceHW)
		if err != nil || len(l.Ports) != 1 || len(l.Warnings) != 0 {
			t.Fatalf("%+v, %v", l, err)
		}
		c := l.Ports[0]
		if len(c.HW) != 36 || c.Lifespan.Milliseconds() != 10 || c.HW["RcAcks"] != 19918731 || c.HW["RcResend"] != 2079 || c.HW["PktDrop"] != 134 {
			t.Errorf("%d counters, lifespan %v: %v", len(c.HW), c.Lifespan, c.HW)
		}
		for name, want := range map[string]CounterClass{"RcResend": ClassRetransmission, "RcSeqNak": ClassRetransmission,
			"RcTimeOut": ClassRetransmission, "RcDupRew": ClassRetransmission, "OtherNak": ClassRetransmission,
			"PktDrop": ClassError, "RcvHdrOvr0": ClassError, "RcvCstrErr": ClassError, "LoopPkts": ClassTraffic, "DmaWait": ClassOther} {
			if _, ok := c.HW[name]; !ok || ClassifyCounter(name) != want {
				t.Errorf("%s: present %v, class %q, want %q", name, ok, ClassifyCounter(name), want)
			}
		}
	})
	t.Run("counters-listing-i40iw-no-pma", func(t *testing.T) {
		l, err := ParseCounterListing(bytesReader(readRealworld(t, counterListingCases[2])), SourcePMA)
		if !errors.Is(err, ErrParse) || len(l.Ports) != 0 || len(l.Warnings) != 8 {
			t.Fatalf("%d ports, %d warnings, %v", len(l.Ports), len(l.Warnings), err)
		}
		w := lineWarningAt(t, l.Warnings, 0)
		if w.Line != 1 || !errors.Is(w, ErrParse) || !strings.Contains(w.Error(), `"N/A (no PMA)"`) || !strings.Contains(w.Error(), "counters/excessive_buffer_overrun_errors") {
			t.Errorf("first warning %v", w)
		}
		if lineWarningAt(t, l.Warnings, 7).Line != 8 {
			t.Errorf("last warning %v", l.Warnings[7])
		}
	})
}
