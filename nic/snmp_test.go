package nic

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var netperfRecv = regexp.MustCompile(`(?m)^\s+(\d+)\s+([\d.]+)\s+(\d+)\s+[\d.]+$`)

// TestUDPLossFixtures attributes the loss of the lab's netperf UDP_STREAM
// run (4 KiB receive buffer) to RcvbufErrors, and checks the counters
// against netperf's own numbers.
func TestUDPLossFixtures(t *testing.T) {
	for _, s := range suites {
		caps := suiteCapture(t, s)
		var u [2]UDPCounters
		for i, scen := range []string{"virtio-veth", "after-udp-loss"} {
			snmp, err := caps[scen].root().SNMP()
			if err != nil {
				t.Fatalf("%s %s: %v", s, scen, err)
			}
			if u[i], err = snmp.UDP(); err != nil {
				t.Fatal(err)
			}
			if snmp["Tcp"]["MaxConn"] != -1 {
				t.Errorf("%s: Tcp MaxConn = %d, want -1", s, snmp["Tcp"]["MaxConn"])
			}
		}
		if u[0] != (UDPCounters{}) {
			t.Errorf("%s: counters before traffic = %+v", s, u[0])
		}
		d := u[1].Sub(u[0])
		loss := d.Loss()
		// netperf's last row: receiver socket size, time, messages received.
		out := caps["virtio-veth"].Cmds["netperf"] // it ran just before the second scenario
		m := netperfRecv.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no receive row in netperf output:\n%s", s, out)
		}
		received, _ := strconv.ParseUint(m[3], 10, 64)
		// The kernel delivered what netperf read (+1: netperf's control
		// datagram), dropped the rest for the full receive buffer, and
		// both add up to what was sent (give or take the few datagrams
		// in flight when the test ended).
		if d.InDatagrams < received || d.InDatagrams > received+2 {
			t.Errorf("%s: InDatagrams %d, netperf received %d", s, d.InDatagrams, received)
		}
		if loss.ReceiveBuffer == 0 || loss.ReceiveBuffer != d.InErrors || loss.OtherIn != 0 || loss.Total() != loss.ReceiveBuffer {
			t.Errorf("%s: loss %+v from %+v", s, loss, d)
		}
		if sum := d.InDatagrams + d.RcvbufErrors; sum > d.OutDatagrams || d.OutDatagrams-sum > 5 {
			t.Errorf("%s: in %d + rcvbuf %d vs out %d", s, d.InDatagrams, d.RcvbufErrors, d.OutDatagrams)
		}
		t.Logf("%s: %+v", s, loss)
	}
}

func TestParseSNMPErrors(t *testing.T) {
	for name, in := range map[string]string{
		"odd line":        "Ip: Forwarding\n",
		"other protocol":  "Ip: Forwarding\nUdp: 1\n",
		"count mismatch":  "Ip: Forwarding DefaultTTL\nIp: 1\n",
		"not a number":    "Ip: Forwarding\nIp: x\n",
		"no colon":        "Ip Forwarding\n",
		"second is wrong": "Ip: Forwarding\nIp: 1\nUdp: InErrors\nUdp: -\n",
	} {
		got, err := ParseSNMP(strings.NewReader(in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: err = %v", name, err)
		}
		if name == "second is wrong" && !cmp.Equal(got, SNMP{"Ip": {"Forwarding": 1}}) {
			t.Errorf("%s: kept %v", name, got)
		}
	}
	if _, err := (SNMP{}).UDP(); !errors.Is(err, ErrParse) {
		t.Errorf("no Udp: %v", err)
	}
}

func TestUDPCountersSubReset(t *testing.T) {
	a := UDPCounters{InDatagrams: 10, RcvbufErrors: 5, InErrors: 7}
	b := UDPCounters{InDatagrams: 3, RcvbufErrors: 9, InErrors: 2}
	want := UDPCounters{InDatagrams: 7, InErrors: 5}
	if got := a.Sub(b); got != want {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
	if l := (UDPCounters{InErrors: 9, RcvbufErrors: 4, InCsumErrors: 1, NoPorts: 2}).Loss(); l != (UDPLoss{ReceiveBuffer: 4, Checksum: 1, NoPort: 2, OtherIn: 4}) {
		t.Errorf("Loss = %+v", l)
	}
}

func FuzzParseSNMP(f *testing.F) {
	f.Add("Ip: Forwarding DefaultTTL\nIp: 1 64\nUdp: InDatagrams NoPorts\nUdp: 2527 0\n")
	f.Add("Tcp: MaxConn\nTcp: -1\n")
	f.Add("x\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseSNMP(strings.NewReader(s))
		if err == nil && m == nil {
			t.Fatal("nil map without error")
		}
		if err == nil {
			_, _ = m.UDP()
		}
	})
}

func BenchmarkParseSNMP(b *testing.B) {
	data := suiteCapture(b, "trixie")["after-udp-loss"].Files["proc/net/snmp"].Data
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseSNMP(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
}
