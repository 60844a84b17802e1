package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/nic"
)

// TestTxQueueLenFake: the value is journaled in Value.Ext and read back
// from the file; Verify sees a length someone else changed; Restore sets
// the old one back; 0 and a value of another kind are refused.
func TestTxQueueLenFake(t *testing.T) {
	f := newFake()
	f.vals["txqueuelen//eth0"] = txQueueLenValue(1000)
	s := fakeSession(t, f)
	ctx := context.Background()
	for _, c := range []Change{
		TxQueueLen("", "eth0", 0),
		{Kind: KindTxQueueLen, Target: Target{Netdev: "eth0"}, New: Value{MTU: 9000}},
		TxQueueLen("", "eth0/../x", 5000),
	} {
		if _, err := s.Apply(ctx, c); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("Apply %+v: %v, want ErrInvalidInput", c, err)
		}
	}
	if _, err := s.Apply(ctx, TxQueueLen("", "eth9", 5000)); err == nil || !strings.Contains(err.Error(), "txqueuelen netdev eth9") {
		t.Errorf("a missing netdev: %v", err)
	}
	e, err := s.Apply(ctx, TxQueueLen("", "eth0", 5000))
	if err != nil {
		t.Fatal(err)
	}
	if got := e[0].String(); got != "#1 txqueuelen netdev eth0: txqueuelen 1000 -> txqueuelen 5000" {
		t.Errorf("entry %q", got)
	}
	b, err := os.ReadFile(s.Path())
	if err != nil || !strings.Contains(string(b), `"kind":"txqueuelen","target":{"netdev":"eth0"},"old":{"ext":{"txqueuelen":1000}},"new":{"ext":{"txqueuelen":5000}}`) {
		t.Errorf("journal line not found (%v):\n%s", err, b)
	}
	j, err := ReadJournal(s.Path())
	if n, ok := j.Entries[0].Old.TxQueueLen(); err != nil || !ok || n != 1000 {
		t.Errorf("old value read back: %d %v %v", n, ok, err)
	}
	if n, ok := (Value{MTU: 1500}).TxQueueLen(); ok {
		t.Errorf("an MTU value gives txqueuelen %d", n)
	}

	f.vals["txqueuelen//eth0"] = txQueueLenValue(7)
	d, err := s.Verify(ctx)
	if err != nil || len(d) != 1 || d[0].String() != "#1 txqueuelen netdev eth0: set txqueuelen 5000, now txqueuelen 7" {
		t.Errorf("Verify = %v, %v", d, err)
	}
	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "txqueuelen//eth0"); got != `{"txqueuelen":1000}` {
		t.Errorf("after Restore %s", got)
	}
	if n, _ := f.vals["txqueuelen//eth0"].TxQueueLen(); n != 1000 {
		t.Errorf("after Restore txqueuelen %d", n)
	}
}

// TestRootTxQueueLen: on a veth in a fresh namespace, the length is set
// over netlink and put back by Restore; and after the process that set it
// is killed with SIGKILL, by Recover from the journal.
func TestRootTxQueueLen(t *testing.T) {
	tn := newNetns(t, "txq")
	tn.veth(t, "tq0", "198.18.60.9/24", "tq1", "198.18.60.10/24")
	ctx := rootCtx(t)
	// The helper's veth has none (netlink's LinkAttrs asks for 0): an
	// old length of 0 is put back too.
	orig := tn.link(t, "tq0").TxQLen
	if orig == 4321 || orig == 20000 {
		t.Fatalf("veth txqueuelen %d", orig)
	}
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply(ctx, TxQueueLen(tn.Name, "nosuch0", 10)); !errors.Is(err, nic.ErrNetdevNotFound) {
		t.Errorf("a missing netdev: %v, want nic.ErrNetdevNotFound", err)
	}
	if _, err := s.Apply(ctx, TxQueueLen(tn.Name, "tq0", 4321)); err != nil {
		t.Fatal(err)
	}
	if n := tn.link(t, "tq0").TxQLen; n != 4321 {
		t.Errorf("txqueuelen %d after Apply", n)
	}
	if d, err := s.Verify(ctx); err != nil || d != nil {
		t.Errorf("Verify = %v, %v", d, err)
	}
	if _, err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tn.link(t, "tq0").TxQLen; n != orig {
		t.Errorf("txqueuelen %d after Restore, want %d", n, orig)
	}

	journal := filepath.Join(t.TempDir(), "crash.jsonl")
	crashAfterApply(t, crashPlan{Journal: journal, Changes: []Change{TxQueueLen(tn.Name, "tq1", 20000)}})
	if n := tn.link(t, "tq1").TxQLen; n != 20000 {
		t.Fatalf("the child left txqueuelen %d", n)
	}
	rep, err := Recover(ctx, journal)
	if err != nil || len(rep.Undone) != 1 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	if n := tn.link(t, "tq1").TxQLen; n != orig {
		t.Errorf("tq1 txqueuelen %d after Recover, want %d", n, orig)
	}
}
