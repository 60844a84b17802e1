package kmsg

import (
	"slices"
	"testing"
)

func texts(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return out
}

func TestFilter(t *testing.T) {
	recs := readLog(t, "spdk-1184-rxe-bond-journal/output.txt").Records
	for _, c := range []struct {
		f    Filter
		want int
	}{
		{Filter{}, 12},
		{Filter{Drivers: []string{"rdma_rxe"}}, 3}, // rdma_rxe: and infiniband rxe0:
		{Filter{Drivers: []string{"rxe"}}, 3},
		{Filter{Netdevs: []string{"ens1f0"}}, 2},
		{Filter{Netdevs: []string{"bond0"}}, 4}, // bond0: … x3, ADDRCONF bond0
		{Filter{Devices: []string{"rxe0"}}, 2},
		{Filter{Drivers: []string{"mlx5"}}, 0},
	} {
		if got := c.f.Apply(recs); len(got) != c.want {
			t.Errorf("%+v kept %d: %q; want %d", c.f, len(got), texts(got), c.want)
		}
	}
	// Any rxe device name, as the lab test named one.
	if !(Filter{Drivers: []string{"rdma_rxe"}}).Match(Record{Source: SourceOf("infiniband rxekmsg: set active")}) {
		t.Error("rdma_rxe filter dropped infiniband rxekmsg")
	}
	mlx4 := readLog(t, "lis-556-hv-netvsc-mlx4-vf-reset-syslog/output.txt").Records
	if n := len(Filter{Drivers: []string{"mlx4"}}.Apply(mlx4)); n != 10 {
		t.Errorf("mlx4 family kept %d, want 10 (mlx4_core and mlx4_en)", n)
	}
	if n := len(Filter{Drivers: []string{"mlx4_en"}}.Apply(mlx4)); n != 4 {
		t.Errorf("mlx4_en kept %d, want 4", n)
	}
	if n := len(Filter{Drivers: []string{"hv_netvsc"}, Netdevs: []string{"eth0"}}.Apply(mlx4)); n != 2 {
		t.Errorf("hv_netvsc kept %d, want 2", n)
	}
}

// TestSinceKmsg: a round's records by sequence number, from the lab capture
// read in two parts.
func TestSinceKmsg(t *testing.T) {
	k := readLog(t, "lab-trixie-rxe-injected/kmsg.txt").Records
	k = k[:len(k)-1] // dd's own line
	before, after := k[:390], k
	got := Since(before, after)
	if len(got) != 8 || got[0].Seq != 390 || got[7].Text != "rocekit-test: injected" {
		t.Fatalf("Since: %d records %q", len(got), texts(got))
	}
	// The ring wrapped between the reads: the later read starts after
	// the cursor's record; sequence numbers still tell what is new.
	if got := Since(before, k[395:]); len(got) != 3 || got[0].Seq != 395 {
		t.Errorf("wrapped: %q", texts(got))
	}
	if got := Since(k, k); len(got) != 0 {
		t.Errorf("nothing new: %q", texts(got))
	}
	// A reboot: the sequence numbers went back.
	if got := Since(k, k[:5]); len(got) != 5 {
		t.Errorf("after a reboot: %d records, want all 5", len(got))
	}
	// A trailing line without a sequence number (dd's own message) does
	// not hide the sequence numbers.
	withDD := readLog(t, "lab-trixie-rxe-injected/kmsg.txt").Records
	if got := Since(before, withDD); len(got) != 9 || got[0].Seq != 390 {
		t.Errorf("with dd's line: %d records", len(got))
	}
	if got := Since(nil, k[:3]); len(got) != 3 {
		t.Errorf("no before: %d", len(got))
	}
}

// TestSinceDmesg: without sequence numbers, by the last record found again,
// else by time.
func TestSinceDmesg(t *testing.T) {
	d := readLog(t, "lab-bookworm-rxe-injected/dmesg-r.txt").Records
	before := d[:385]
	got := Since(before, d)
	if len(got) != 7 || got[len(got)-1].Text != "rocekit-test: injected" {
		t.Fatalf("Since: %q", texts(got))
	}
	// Wrapped: the cursor's record is gone from the later read; the
	// timestamps decide.
	if got := Since(before, d[390:]); !slices.Equal(texts(got), texts(d[390:])) {
		t.Errorf("wrapped: %q", texts(got))
	}
	// Same timestamps on many records (the boot's 0.000000): the record
	// and those before it are matched, not only the time.
	if got := Since(d[:3], d[:10]); len(got) != 7 || got[0].Text != d[3].Text {
		t.Errorf("equal stamps: %q", texts(got))
	}
	// No timestamps at all (bare text): by the anchor.
	alx := readLog(t, "endlessm-548-alx-aer-corrected/output.txt").Records
	if got := Since(alx[:2], alx); len(got) != 2 || got[0].Text != alx[2].Text {
		t.Errorf("bare: %q", texts(got))
	}
	if got := CursorOf(alx[:2]).After(alx[3:]); len(got) != 1 {
		t.Errorf("bare, anchor gone: %q, want all 1 record", texts(got))
	}
}
