package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/irq"
)

// TestKindsTableComplete: every kind this build makes has an entry with
// its read, write and match, so that Apply, Restore, Recover and Verify
// need no switch of their own.
func TestKindsTableComplete(t *testing.T) {
	want := []Kind{KindAffinity, KindChannels, KindCoalesce, KindFeatures, KindGovernor, KindIRQBalance,
		KindLink, KindMTU, KindNetns, KindProcess, KindRXE, KindRing, KindSysctl, KindVeth}
	got := map[Kind]bool{}
	for _, k := range Kinds() {
		got[k] = true
		d := k.def()
		if d.read == nil || d.write == nil || d.matches == nil {
			t.Errorf("kind %s: read, write or matches missing", k)
		}
	}
	for _, k := range want {
		if !got[k] {
			t.Errorf("kind %s not in the table", k)
		}
	}
	if err := validateTarget("nosuchkind", Target{}); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("unknown kind: %v", err)
	}
	if matches("nosuchkind", Value{MTU: 1}, Value{MTU: 1}) {
		t.Error("an unknown kind matches")
	}
}

// TestRecoverJournalOfOldCode: a journal written by the build before the
// kinds table (testdata/journal-v1-4e368b0.jsonl, every line as that code
// wrote it) still replays: every change is undone, newest first.
func TestRecoverJournalOfOldCode(t *testing.T) {
	b, err := os.ReadFile("testdata/journal-v1-4e368b0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFake()
	before := map[string]string{}
	for k := range f.vals {
		before[k] = f.get(t, k)
	}
	// The system as that run left it.
	up := false
	f.vals["mtu//eth0"] = Value{MTU: 9000}
	f.vals["link//eth0"] = Value{Up: &up}
	f.vals["ring//eth0"].Ring.Rx = u32(1024)
	f.vals["channels//eth0"].Channels.Combined = u32(1)
	f.vals["rxe//rxe0"] = Value{RXE: &RXELink{Present: true, Netdev: "eth0"}}
	f.vals["affinity/27"] = Value{CPUs: irq.NewCPUList(1)}
	f.vals["governor/0"] = Value{Governor: "performance"}
	f.vals["coalesce//eth0"].Coalesce.RxUsecs = u32(0)

	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, e := range rep.Undone {
		seqs = append(seqs, e.Seq)
	}
	if len(seqs) != 8 || seqs[0] != 8 || seqs[7] != 1 {
		t.Errorf("undone %v, want 8 down to 1", seqs)
	}
	if rep.Undone[0].String() != "#8 coalesce netdev eth0: adaptive-rx on, adaptive-tx off, rx-usecs 8 rx-frames 128 tx-usecs 0 tx-frames 0 -> rx-usecs 0" {
		t.Errorf("entry #8 reads %q", rep.Undone[0])
	}
	assertBack(t, f, before)
	rep, err = recoverWith(context.Background(), path, func(string, string) system { return f })
	if err != nil || len(rep.Undone) != 0 || rep.AlreadyRestored != 8 {
		t.Errorf("second Recover = %+v, %v", rep, err)
	}
}

// TestRecoverTamperedExt: a journaled Ext value that is not the kind's
// (edited by hand, or another build's) is refused, not written back, and
// the other changes are still undone.
func TestRecoverTamperedExt(t *testing.T) {
	f := newFake()
	f.vals["txqueuelen//eth0"] = txQueueLenValue(1000)
	s := fakeSession(t, f)
	ctx := context.Background()
	if _, err := s.Apply(ctx, MTU("", "eth0", 9000), TxQueueLen("", "eth0", 5000)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `"old":{"ext":{"txqueuelen":1000}}`, `"old":{"ext":"1000"}`, 1)
	if bad == string(b) {
		t.Fatal("the txqueuelen entry was not found to tamper with")
	}
	if err := os.WriteFile(s.Path(), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	f.writes = nil
	rep, err := recoverWith(ctx, s.Path(), func(string, string) system { return f })
	var ue *UndoError
	if !errors.As(err, &ue) || !errors.Is(err, ErrInvalidInput) || ue.Entry.Seq != 2 || ue.Left != "not touched" ||
		!strings.Contains(err.Error(), "journal entry #2 has no old value") {
		t.Fatalf("Recover error %v, want an *UndoError for #2 with no old value", err)
	}
	if len(rep.Undone) != 1 || rep.Undone[0].Seq != 1 || f.get(t, "mtu//eth0") != "mtu 1500" {
		t.Errorf("Recover = %+v; MTU %s", rep, f.get(t, "mtu//eth0"))
	}
	for _, w := range f.writes {
		if strings.HasPrefix(w, "txqueuelen/") {
			t.Errorf("wrote %s for the tampered entry", w)
		}
	}
}
