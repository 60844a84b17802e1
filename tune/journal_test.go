package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
)

// applySome applies one change of each kind the fake knows and returns
// the session and the fake's values before.
func applySome(t *testing.T) (*fakeSystem, *Session, map[string]string) {
	t.Helper()
	f := newFake()
	before := map[string]string{}
	for k := range f.vals {
		before[k] = f.get(t, k)
	}
	s := fakeSession(t, f)
	_, err := s.Apply(context.Background(),
		MTU("", "eth0", 9000),
		LinkUp("", "eth0", false),
		Ring("", "eth0", nic.RingUpdate{Rx: u32(1024)}),
		Channels("", "eth0", nic.ChannelsUpdate{Combined: u32(1)}),
		AddRXE("", "rxe0", "eth0"),
		Affinity(27, irq.NewCPUList(1)),
		Governor(0, "performance"),
	)
	if err != nil {
		t.Fatal(err)
	}
	return f, s, before
}

func TestJournalRoundTrip(t *testing.T) {
	_, s, _ := applySome(t)
	j, err := ReadJournal(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s.Entries(), j.Entries); d != "" {
		t.Errorf("entries read back (-session +file):\n%s", d)
	}
	if !j.Root.IsHost() || j.PID != os.Getpid() || j.Torn != 0 {
		t.Errorf("header: %+v", j)
	}
	want := []string{
		"#1 mtu netdev eth0: mtu 1500 -> mtu 9000",
		"#2 link netdev eth0: up -> down",
		"#3 ring netdev eth0: rx 256 rx-mini 0 rx-jumbo 0 tx 256 -> rx 1024",
		"#4 channels netdev eth0: rx 0 tx 0 other 0 combined 2 -> combined 1",
		"#5 rxe rxe link rxe0: no rxe link -> rxe on eth0",
		"#6 affinity IRQ 27: cpus 0-3 -> cpus 1",
		"#7 governor CPU 0: governor schedutil -> governor performance",
	}
	var got []string
	for _, e := range j.Entries {
		got = append(got, e.String())
		if !e.Done || e.Restored {
			t.Errorf("%s: done %v restored %v", e, e.Done, e.Restored)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	// Every line is a change or a mark: 1 header + 7 changes + 7 done.
	b, _ := os.ReadFile(s.Path())
	if n := bytes.Count(b, []byte("\n")); n != 15 {
		t.Errorf("%d lines, want 15:\n%s", n, b)
	}
}

func TestRestoreReverseOrderAndIdempotent(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	ctx := context.Background()
	for _, mtu := range []int{9000, 4000} {
		if _, err := s.Apply(ctx, MTU("", "eth0", mtu)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(ctx, Affinity(27, irq.NewCPUList(2)), Affinity(28, irq.NewCPUList(3))); err != nil {
		t.Fatal(err)
	}
	f.writes = nil
	rep, err := s.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"affinity/28=cpus 0-3", "affinity/27=cpus 0-3", "mtu//eth0=mtu 9000", "mtu//eth0=mtu 1500"}
	if d := cmp.Diff(want, f.writes); d != "" {
		t.Errorf("undo writes (-want +got):\n%s", d)
	}
	if len(rep.Undone) != 4 || rep.Undone[0].Seq != 4 || rep.Undone[3].Seq != 1 || rep.AlreadyRestored != 0 {
		t.Errorf("report %+v", rep)
	}
	if got := f.get(t, "mtu//eth0"); got != "mtu 1500" {
		t.Errorf("eth0 %s after restore", got)
	}

	// Twice: nothing to do, nothing written, in the session and from the file.
	f.writes = nil
	rep, err = s.Restore(ctx)
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 4 || len(f.writes) != 0 {
		t.Errorf("second Restore = %+v, %v; writes %v", rep, err, f.writes)
	}
	// The session holds its journal until it is closed (or its process dies).
	if _, err := recoverWith(ctx, s.Path(), func(string, string) system { return f }); !errors.Is(err, ErrLocked) {
		t.Errorf("Recover of a live session's journal = %v, want ErrLocked", err)
	}
	s.Close()
	rep, err = recoverWith(ctx, s.Path(), func(string, string) system { return f })
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 4 || len(f.writes) != 0 {
		t.Errorf("Recover after Restore = %+v, %v; writes %v", rep, err, f.writes)
	}
	j, err := ReadJournal(s.Path())
	if err != nil || len(j.Pending()) != 0 {
		t.Errorf("journal after restore: pending %v, %v", j.Pending(), err)
	}
}

func TestRestoreFailedUndoKeepsGoing(t *testing.T) {
	f := newFake()
	s := fakeSession(t, f)
	ctx := context.Background()
	if _, err := s.Apply(ctx, MTU("", "eth0", 9000), Affinity(27, irq.NewCPUList(1)), MTU("", "eth1", 9000)); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("device busy")
	f.failW["affinity/27"] = boom
	rep, err := s.Restore(ctx)
	var ue *UndoError
	if !errors.Is(err, ErrUndo) || !errors.As(err, &ue) || !errors.Is(err, boom) {
		t.Fatalf("Restore error %v, want an *UndoError wrapping %v", err, boom)
	}
	if ue.Entry.Seq != 2 || ue.Left != "cpus 1" || !strings.Contains(err.Error(), "IRQ 27") {
		t.Errorf("UndoError %+v: %v", ue, err)
	}
	if len(rep.Undone) != 2 || f.get(t, "mtu//eth0") != "mtu 1500" || f.get(t, "mtu//eth1") != "mtu 1500" {
		t.Errorf("the other changes were not undone: %+v, eth0 %s, eth1 %s", rep, f.get(t, "mtu//eth0"), f.get(t, "mtu//eth1"))
	}
	if got := f.get(t, "affinity/27"); got != "cpus 1" {
		t.Errorf("IRQ 27 left as %s", got)
	}
	// The failed one stays pending: once the cause is gone, it is undone.
	delete(f.failW, "affinity/27")
	rep, err = s.Restore(ctx)
	if err != nil || len(rep.Undone) != 1 || rep.Undone[0].Seq != 2 || f.get(t, "affinity/27") != "cpus 0-3" {
		t.Errorf("retry = %+v, %v; IRQ 27 %s", rep, err, f.get(t, "affinity/27"))
	}
}

// journalBytes applies one change of each kind and returns the journal
// file's content, its path, the fake and the fake's values before.
func journalBytes(t *testing.T) ([]byte, string, *fakeSystem, map[string]string) {
	f, s, before := applySome(t)
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // as its process would on a crash: the lock goes with it
	return b, s.Path(), f, before
}

func TestRecoverTornLastLine(t *testing.T) {
	b, path, f, before := journalBytes(t)
	// Killed mid-write: half of a "restored" mark.
	torn := []byte(`{"rec":"restored","seq":7,"ti`)
	if err := os.WriteFile(path, append(append([]byte{}, b...), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := ReadJournal(path)
	if err != nil || j.Torn != len(torn) || len(j.Entries) != 7 || j.Entries[6].Restored {
		t.Fatalf("ReadJournal: torn %d, %d entries, %v", j.Torn, len(j.Entries), err)
	}
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	if err != nil || len(rep.Undone) != 7 || rep.Torn != len(torn) {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	assertBack(t, f, before)
	// The torn bytes were cut before the marks were appended.
	after, err := ReadJournal(path)
	if err != nil || after.Torn != 0 || len(after.Pending()) != 0 {
		t.Errorf("journal after Recover: torn %d, pending %d, %v", after.Torn, len(after.Pending()), err)
	}
}

func assertBack(t *testing.T, f *fakeSystem, before map[string]string) {
	t.Helper()
	for k, want := range before {
		if got := f.get(t, k); got != want {
			t.Errorf("%s = %s, want %s back", k, got, want)
		}
	}
}

// cutPoints returns, for every line of b, offsets that cut it at its
// start, after its first byte, in its middle, before and after its
// newline.
func cutPoints(b []byte) []int {
	seen := map[int]bool{}
	var out []int
	for start := 0; start < len(b); {
		end := start + bytes.IndexByte(b[start:], '\n')
		for _, n := range []int{start, start + 1, (start + end) / 2, end, end + 1} {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		start = end + 1
	}
	return out
}

// TestRecoverTruncatedMidLine cuts the journal in the middle of each line
// (and at its ends) and recovers from what is left: no panic, no error
// beyond the torn line, and every change whose line survived is undone.
func TestRecoverTruncatedMidLine(t *testing.T) {
	b, path, _, before := journalBytes(t)
	for _, n := range cutPoints(b) {
		f := newFake()
		// The state when the crash came: changes whose line is whole were
		// (maybe) made. Make them all, the worst case.
		j, err := parseJournal(path, b[:n])
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		for _, e := range j.Entries {
			f.write(context.Background(), e.Kind, e.Target, e.New)
		}
		if err := os.WriteFile(path, b[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
		if err != nil {
			t.Fatalf("cut at %d: Recover: %v", n, err)
		}
		if len(rep.Undone) != len(j.Entries) {
			t.Errorf("cut at %d: undid %d of %d", n, len(rep.Undone), len(j.Entries))
		}
		assertBack(t, f, before)
	}
}

func TestRecoverNotDone(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := fakeSession(t, f)
	// The write fails after changing the value (a verify error): the entry
	// stays journaled without its done mark.
	if _, err := s.Apply(ctx, MTU("", "eth0", 9000)); err != nil {
		t.Fatal(err)
	}
	f.failW["mtu//eth1"] = errors.New("set, read back 8192")
	if _, err := s.Apply(ctx, MTU("", "eth1", 9000)); err == nil {
		t.Fatal("Apply did not report the failed write")
	}
	f.vals["mtu//eth1"] = Value{MTU: 8192} // what the failed write left
	j, _ := ReadJournal(s.Path())
	if len(j.Entries) != 2 || !j.Entries[0].Done || j.Entries[1].Done {
		t.Fatalf("entries %+v", j.Entries)
	}
	delete(f.failW, "mtu//eth1")
	s.Close()
	rep, err := recoverWith(ctx, s.Path(), func(string, string) system { return f })
	if err != nil || len(rep.Undone) != 2 || f.get(t, "mtu//eth1") != "mtu 1500" || f.get(t, "mtu//eth0") != "mtu 1500" {
		t.Errorf("Recover = %+v, %v; eth0 %s eth1 %s", rep, err, f.get(t, "mtu//eth0"), f.get(t, "mtu//eth1"))
	}

	// Journaled but never made: the value is already the old one, so
	// nothing is written.
	f2 := newFake()
	s2 := fakeSession(t, f2)
	if _, err := s2.jf.begin(Entry{Kind: KindMTU, Target: Target{Netdev: "eth0"}, Old: Value{MTU: 1500}, New: Value{MTU: 9000}}); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	rep, err = recoverWith(ctx, s2.Path(), func(string, string) system { return f2 })
	if err != nil || len(rep.Undone) != 1 || len(f2.writes) != 0 {
		t.Errorf("Recover of an unmade change = %+v, %v, writes %v", rep, err, f2.writes)
	}
}

func TestReadJournalBadLines(t *testing.T) {
	b, path, _, _ := journalBytes(t)
	lines := strings.SplitAfter(string(b), "\n")
	// Line 3 garbled in the middle of the file; a done mark for a change
	// that does not exist.
	lines[2] = "{garbage\n"
	bad := strings.Join(lines, "") + `{"rec":"done","seq":99,"time":"2026-11-29T00:00:00Z"}` + "\n"
	os.WriteFile(path, []byte(bad), 0o600)
	j, err := ReadJournal(path)
	var je *JournalError
	if !errors.Is(err, ErrJournal) || !errors.As(err, &je) || je.Line != 3 {
		t.Fatalf("error %v, want a *JournalError for line 3", err)
	}
	if !strings.Contains(err.Error(), "line 16: done mark for unknown change #99") {
		t.Errorf("error %v does not name line 16", err)
	}
	if len(j.Entries) != 7 {
		t.Errorf("%d entries kept, want 7 (line 3 was a done mark)", len(j.Entries))
	}

	os.WriteFile(path, []byte(`{"rec":"change","seq":1,"entry":{"seq":1,"kind":"mtu"}}`+"\n"), 0o600)
	if _, err := ReadJournal(path); !errors.Is(err, ErrJournal) || !strings.Contains(err.Error(), "no header") {
		t.Errorf("journal without header: %v", err)
	}
	if _, err := Recover(context.Background(), path+".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Recover(missing) = %v", err)
	}
}

func TestBeginRefusesPendingJournal(t *testing.T) {
	f, s, _ := applySome(t)
	if _, err := begin(s.Path(), "/proc", "/sys", newFake()); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Errorf("Begin on a live session's journal: %v, want ErrLocked naming this PID", err)
	}
	s.Close()
	if _, err := begin(s.Path(), "/proc", "/sys", newFake()); !errors.Is(err, ErrPending) {
		t.Errorf("Begin on a journal with pending changes: %v", err)
	}
	if _, err := recoverWith(context.Background(), s.Path(), func(string, string) system { return f }); err != nil {
		t.Fatal(err)
	}
	s2, err := begin(s.Path(), "/proc", "/sys", newFake())
	if err != nil {
		t.Fatalf("Begin on a restored journal: %v", err)
	}
	defer s2.Close()
	if j, err := ReadJournal(s.Path()); err != nil || len(j.Entries) != 0 || j.PID != os.Getpid() {
		t.Errorf("restored journal not replaced: %d entries, pid %d, %v", len(j.Entries), j.PID, err)
	}
}

// TestRecoverTamperedEntry: a journal entry whose target would escape its
// folder (/run/netns/../.., an interface name with '/') is reported and not
// acted on; the other entries are undone.
func TestRecoverTamperedEntry(t *testing.T) {
	b, path, f, before := journalBytes(t)
	bad := strings.Replace(string(b), `"target":{"netdev":"eth0"},"old":{"mtu":1500}`, `"target":{"netns":"../../etc","netdev":"eth0"},"old":{"mtu":1500}`, 1)
	if bad == string(b) {
		t.Fatal("the MTU entry was not found to tamper with")
	}
	os.WriteFile(path, []byte(bad), 0o600)
	f.writes = nil
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	var ue *UndoError
	if !errors.As(err, &ue) || !errors.Is(err, ErrInvalidInput) || ue.Entry.Seq != 1 || ue.Left != "not touched" {
		t.Fatalf("Recover error %v, want an *UndoError for #1 matching ErrInvalidInput", err)
	}
	if len(rep.Undone) != 6 {
		t.Errorf("undid %d of the 6 other entries", len(rep.Undone))
	}
	for _, w := range f.writes {
		if strings.HasPrefix(w, "mtu/") {
			t.Errorf("wrote %s for the tampered entry", w)
		}
	}
	delete(before, "mtu//eth0") // left at 9000: the entry no longer names it
	assertBack(t, f, before)
}
