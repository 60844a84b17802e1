//go:build lab

package rxe

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/internal/labtest"
)

// sendBWPair runs an ib_send_bw loopback pair of n messages on device with
// GID index gid, the client connecting to addr, and returns the client's
// output.
func sendBWPair(t *testing.T, ctx context.Context, device string, gid, n int, addr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	args := []string{"-d", device, "-x", strconv.Itoa(gid), "-n", strconv.Itoa(n), "-F"}
	srv := exec.CommandContext(ctx, "ib_send_bw", args...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	var out []byte
	var err error
	for i := 0; i < 30; i++ { // the client does not retry; the server needs time to listen
		time.Sleep(time.Second)
		out, err = exec.CommandContext(ctx, "ib_send_bw", append(args, addr)...).CombinedOutput()
		if err == nil {
			return string(out)
		}
	}
	t.Fatalf("ib_send_bw client: %v\n%s", err, out)
	return ""
}

// TestLabPortCounters reads rxe's hw_counters around an ib_send_bw pair:
// the rdma_rxe names of rxe_hw_counters.c, no counters/ directory, and
// sent_pkts and rcvd_pkts that grew.
func TestLabPortCounters(t *testing.T) {
	ctx, h := labLink(t, "rxelabc", "rxc0", "rxc1", "198.18.26.1/24")
	if _, err := h.WaitActive(ctx, "rxelabc"); err != nil {
		t.Fatal(err)
	}
	gid, err := Root{}.WaitGID(ctx, "rxelabc", 1, isRoCEv2IPv4("198.18.26.1"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := Root{}.PortCounters("rxelabc", 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rxeCounterNames, before.Names()); d != "" {
		t.Errorf("%s: counter names (-want +got):\n%s", labtest.Suite(), d)
	}
	if before.PMA != nil || len(before.Warnings) != 0 || before.Lifespan <= 0 {
		t.Errorf("PMA %v, warnings %v, lifespan %v", before.PMA, before.Warnings, before.Lifespan)
	}
	const n = 1000
	out := sendBWPair(t, ctx, "rxelabc", gid.Index, n, "198.18.26.1")
	// hw_counters are cached for Lifespan; wait it out.
	time.Sleep(before.Lifespan + 10*time.Millisecond)
	after, err := Root{}.PortCounters("rxelabc", 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sent_pkts", "rcvd_pkts", "rdma_sends", "rdma_recvs"} {
		if c, ok := d.Get(name); !ok || c.Delta == 0 || c.Class != ClassTraffic {
			t.Errorf("%s: %+v, want growth", name, c)
		}
	}
	// Loopback: every packet sent is received.
	s, _ := d.Get("sent_pkts")
	r, _ := d.Get("rcvd_pkts")
	if s.Delta != r.Delta || s.Delta < n {
		t.Errorf("sent_pkts +%d, rcvd_pkts +%d, want equal and at least %d", s.Delta, r.Delta, n)
	}
	if e, _ := d.Get("send_err"); e.Delta != 0 {
		t.Errorf("send_err +%d\n%s", e.Delta, out)
	}
	var lines []string
	for _, c := range d.Counters {
		lines = append(lines, c.Name+" "+strconv.FormatUint(c.Before, 10)+"→"+strconv.FormatUint(c.After, 10)+" ("+string(c.Class)+")")
	}
	t.Logf("%s: lifespan %v, %d hw_counters over %v:\n%s", labtest.Suite(), after.Lifespan, len(after.HW), d.Interval, strings.Join(lines, "\n"))
	for _, p := range d.Problems() {
		t.Logf("%s: problem counter %s +%d (%s)", labtest.Suite(), p.Name, p.Delta, p.Class)
	}
	// And what `rdma statistic` says, for the record.
	if st, err := exec.CommandContext(ctx, "rdma", "statistic", "show", "link", "rxelabc/1").CombinedOutput(); err == nil {
		t.Logf("rdma statistic show link rxelabc/1:\n%s", st)
	} else {
		t.Logf("rdma statistic: %v %s", err, st)
	}
}
