//go:build lab

package perftest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/rxe"
	"github.com/vishvananda/netlink"
)

const (
	labNetdev = "rxpt0"
	labPeer   = "rxpt1"
	labDevice = "rxept0"
	labAddr   = "198.18.80.1"
	labNoHost = "198.18.80.2" // on the veth's subnet, but nobody has it
)

// labRXE makes the runbook's setup: rdma_rxe, a veth pair with
// 198.18.80.1/24 on one end, an rxe link on it, ACTIVE, with the RoCE v2
// GID of the address in its table. Everything is removed at the end of
// the test.
func labRXE(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	if _, err := rxe.LoadModule(ctx, rxe.Root{}, nil); err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	v := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: labNetdev}, PeerName: labPeer}
	if err := netlink.LinkAdd(v); err != nil {
		t.Fatalf("add veth: %v", err)
	}
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(labNetdev); err == nil {
			netlink.LinkDel(l)
		}
	})
	for _, n := range []string{labNetdev, labPeer} {
		l, err := netlink.LinkByName(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := netlink.LinkSetUp(l); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := netlink.LinkByName(labNetdev)
	a, _ := netlink.ParseAddr(labAddr + "/24")
	if err := netlink.AddrAdd(l, a); err != nil {
		t.Fatal(err)
	}
	h, err := rxe.Open(rxe.Options{})
	if err != nil {
		t.Fatalf("rxe.Open: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.AddLink(ctx, labDevice, labNetdev); err != nil {
		t.Fatalf("AddLink: %v", err)
	}
	t.Cleanup(func() { h.DeleteLink(context.Background(), labDevice) })
	if _, err := h.WaitActive(ctx, labDevice); err != nil {
		t.Fatalf("WaitActive: %v", err)
	}
	want := netip.MustParseAddr(labAddr)
	if _, err := (rxe.Root{}).WaitGID(ctx, labDevice, 1, func(e rxe.GIDEntry) bool {
		ip, ok := e.IPv4()
		return ok && ip == want && e.Type == rxe.GIDTypeRoCEv2
	}); err != nil {
		t.Fatalf("WaitGID: %v", err)
	}
	return ctx
}

// labEnd is the lab's rxe device with the GID index the rxe package
// selects on it, as perftest would: what a caller reads on each end's host
// before the pair.
func labEnd(t *testing.T) perftest.End {
	t.Helper()
	table, err := rxe.Root{}.GIDTable(labDevice, 1)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := rxe.SelectGID(table, rxe.SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return perftest.End{Device: labDevice, GIDIndex: new(sel.Entry.Index)}
}

// leftover lists processes whose command line holds the pair's port
// flag: nothing of a pair may survive RunPair.
func leftover(t *testing.T, port int) []string {
	t.Helper()
	var found []string
	needle := "\x00-p\x00" + fmt.Sprint(port) + "\x00"
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && strings.Contains(string(b), needle) && strings.Contains(string(b), "ib_") {
			found = append(found, d+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

func gone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestLabPairLoopback runs send/write/read BW and latency pairs on rxe
// loopback: server and client on the same rxe device, the client
// connecting to the veth's own address. Both sides are parsed and agree.
func TestLabPairLoopback(t *testing.T) {
	labtest.Guest(t)
	ctx := labRXE(t)
	r := host.Local{}
	for i, tt := range []perftest.Test{perftest.SendBW, perftest.WriteBW, perftest.ReadBW, perftest.SendLat, perftest.WriteLat, perftest.ReadLat} {
		t.Run(tt.String(), func(t *testing.T) {
			o := perftest.Options{Test: tt, Server: labEnd(t), Client: labEnd(t), Iterations: 200, NoFreqCheck: true,
				Port: 18710 + i, ReportGbits: !tt.Latency()}
			pr, err := perftest.RunPair(ctx, r, r, labAddr, o)
			if err != nil {
				if pr != nil {
					t.Logf("server %q:\n%s\n%s", pr.Server.Argv, pr.Server.Stdout, pr.Server.Stderr)
					t.Logf("client %q:\n%s\n%s", pr.Client.Argv, pr.Client.Stdout, pr.Client.Stderr)
				}
				t.Fatalf("RunPair: %v", err)
			}
			c, s := pr.Client.Result, pr.Server.Result
			if c.Header.Device != labDevice || s.Header.Device != labDevice || c.Header.GIDIndex != pr.Client.GIDIndex {
				t.Errorf("headers: client %+v server %+v, gid %d", c.Header, s.Header, pr.Client.GIDIndex)
			}
			if len(pr.Mismatches) != 0 || !s.Server || c.Server {
				t.Errorf("mismatches %v, server banner %v/%v", pr.Mismatches, s.Server, c.Server)
			}
			var value string
			if tt.Latency() {
				if c.Kind != perftest.ResultLat || len(c.Lat) != 1 || c.Lat[0].TAvgMicros <= 0 || c.Lat[0].Iterations != 200 {
					t.Fatalf("client latency %+v", c.Lat)
				}
				value = fmt.Sprintf("t_avg %.2f us, t_typical %.2f us", c.Lat[0].TAvgMicros, c.Lat[0].TTypicalMicros)
			} else {
				// Emulated rxe can be slow enough for --report_gbits to
				// print 0.00: the row must be there, the value may be 0.
				if c.Kind != perftest.ResultBW || len(c.BW) != 1 || c.BW[0].Iterations == 0 || !(c.BW[0].BWAvgGbps >= 0) || c.Header.BWUnit != perftest.UnitGbps {
					t.Fatalf("client BW %+v", c.BW)
				}
				value = fmt.Sprintf("BW avg %.3f Gb/s", c.BW[0].BWAvgGbps)
				if c.BW[0].BWAvgGbps == 0 {
					t.Logf("client stdout:\n%s", pr.Client.Stdout)
				}
			}
			t.Logf("%s suite=%s gid=%d listen=%v client=%v server=%v pair=%v deadline=%v: %s",
				tt, labtest.Suite(), pr.Client.GIDIndex, pr.Server.Listen.Round(time.Millisecond),
				pr.Client.Elapsed.Round(time.Millisecond), pr.Server.Elapsed.Round(time.Millisecond),
				pr.Elapsed.Round(time.Millisecond), pr.Deadline.Round(time.Second), value)
			if !gone(pr.Server.PID) || !gone(pr.Client.PID) {
				t.Errorf("processes %d/%d still exist", pr.Server.PID, pr.Client.PID)
			}
		})
	}
	// Repeat: fresh pairs, one result each.
	t.Run("Repeat", func(t *testing.T) {
		o := perftest.Options{Test: perftest.SendLat, Server: labEnd(t), Client: labEnd(t), Iterations: 100, NoFreqCheck: true, Port: 18730}
		prs, err := perftest.Repeat(ctx, 3, r, r, labAddr, o)
		if err != nil || len(prs) != 3 {
			t.Fatalf("Repeat: %d results, %v", len(prs), err)
		}
		pids := map[int]bool{}
		for _, pr := range prs {
			pids[pr.Server.PID] = true
			if len(pr.Client.Result.Lat) != 1 {
				t.Errorf("result %+v", pr.Client.Result)
			}
		}
		if len(pids) != 3 {
			t.Errorf("servers %v: not fresh", pids)
		}
	})
}

// TestLabPairMismatch runs a deliberately mismatched pair (server -s
// 65536, client -s 4096: perftest before 26.01 does not check) and expects
// the comparison to report it.
func TestLabPairMismatch(t *testing.T) {
	labtest.Guest(t)
	ctx := labRXE(t)
	o := perftest.Options{Test: perftest.SendBW, Server: labEnd(t), Client: labEnd(t), Iterations: 200, NoFreqCheck: true, Port: 18740,
		AllowAsymmetric: true, Timeout: 2 * time.Minute}
	o.Server.Extra, o.Client.Extra = []string{"-s", "65536"}, []string{"-s", "4096"}
	start := time.Now()
	pr, err := perftest.RunPair(ctx, host.Local{}, host.Local{}, labAddr, o)
	t.Logf("mismatched pair after %v: %v; mismatches %v", time.Since(start).Round(time.Millisecond), err, pr.Mismatches)
	if !errors.Is(err, perftest.ErrHeaderMismatch) {
		t.Fatalf("err %v, want ErrHeaderMismatch", err)
	}
	found := false
	for _, m := range pr.Mismatches {
		found = found || (m.Field == "size" && m.Server == "65536" && m.Client == "4096")
	}
	if !found {
		t.Errorf("mismatches %v, want size 65536/4096", pr.Mismatches)
	}
	if l := leftover(t, 18740); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestLabPairFailures: a client that cannot connect fails with the typed
// error within its deadline and leaves no process; a busy port and a
// missing device fail fast with their own errors.
func TestLabPairFailures(t *testing.T) {
	labtest.Guest(t)
	ctx := labRXE(t)
	r := host.Local{}

	t.Run("NoServer", func(t *testing.T) {
		// The client connects to an address nobody has; the server
		// waits in accept() and is killed once the client has failed.
		o := perftest.Options{Test: perftest.SendBW, Server: labEnd(t), Client: labEnd(t), Iterations: 200, NoFreqCheck: true, Port: 18750, Timeout: time.Minute}
		start := time.Now()
		pr, err := perftest.RunPair(ctx, r, r, labNoHost, o)
		el := time.Since(start)
		t.Logf("no server: %v after %v (client %v, status %v)", err, el.Round(time.Millisecond), pr.Client.Elapsed.Round(time.Millisecond), pr.Client.Status)
		var pe *perftest.PairError
		if !errors.As(err, &pe) || pe.Side != perftest.Client || !errors.Is(err, &perftest.Error{Kind: perftest.KindConnectFailed}) {
			t.Fatalf("err %v, want a client connect failure", err)
		}
		if el >= o.Timeout {
			t.Errorf("took %v, deadline %v", el, o.Timeout)
		}
		if !gone(pr.Server.PID) || !gone(pr.Client.PID) {
			t.Errorf("processes %d/%d still exist", pr.Server.PID, pr.Client.PID)
		}
		if l := leftover(t, 18750); len(l) > 0 {
			t.Errorf("left behind: %v", l)
		}
	})

	t.Run("BusyPort", func(t *testing.T) {
		ln, err := net.Listen("tcp", ":18760")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		start := time.Now()
		_, err = perftest.RunPair(ctx, r, r, labAddr, perftest.Options{Test: perftest.WriteBW, Server: perftest.End{Device: labDevice}, Client: perftest.End{Device: labDevice}, Port: 18760})
		if !errors.Is(err, perftest.ErrPortBusy) || time.Since(start) > time.Second {
			t.Fatalf("err %v after %v, want ErrPortBusy at once", err, time.Since(start))
		}
	})

	t.Run("NoDevice", func(t *testing.T) {
		start := time.Now()
		pr, err := perftest.RunPair(ctx, r, r, labAddr, perftest.Options{Test: perftest.SendLat, Server: perftest.End{Device: "nosuchdev"}, Client: perftest.End{Device: "nosuchdev"}, Port: 18770, NoFreqCheck: true})
		el := time.Since(start)
		t.Logf("no device: %v after %v", err, el.Round(time.Millisecond))
		if !errors.Is(err, &perftest.Error{Kind: perftest.KindDeviceNotFound}) || pr.Client.Started || el > 15*time.Second {
			t.Fatalf("err %v after %v (client started %v), want device not found", err, el, pr.Client.Started)
		}
	})
}
