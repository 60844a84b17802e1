package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// foreignJournal is a journal of pending changes, closed as a crashed
// run leaves it, and the fake it would restore.
func foreignJournal(t *testing.T) (string, *fakeSystem) {
	t.Helper()
	_, path, f, _ := journalBytes(t)
	f.writes = nil
	return path, f
}

func wantNotReplayed(t *testing.T, f *fakeSystem, rep Report, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrJournal) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Recover = %v, want ErrJournal and fs.ErrPermission", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("the error does not name %s: %v", path, err)
	}
	if len(rep.Undone) != 0 || len(f.writes) != 0 {
		t.Errorf("replayed: %+v, writes %v", rep, f.writes)
	}
}

// TestRecoverRefusesJournalOfAnotherUser: a journal user nobody planted
// where a run looks for one is not replayed as root.
func TestRecoverRefusesJournalOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a journal to nobody")
	}
	path, f := foreignJournal(t)
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	wantNotReplayed(t, f, rep, err, path)
	if !strings.Contains(err.Error(), "uid 65534") || !strings.Contains(err.Error(), "mode 0600") {
		t.Errorf("owner and mode not named: %v", err)
	}
}

// TestRecoverRefusesWritableJournal: a journal others can write is not
// replayed either, whoever owns it.
func TestRecoverRefusesWritableJournal(t *testing.T) {
	path, f := foreignJournal(t)
	os.Chmod(path, 0o666)
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	wantNotReplayed(t, f, rep, err, path)
	if !strings.Contains(err.Error(), "mode 0666") {
		t.Errorf("mode not named: %v", err)
	}
}

// TestRecoverRefusesLinkedJournal: a link to a journal is not followed.
func TestRecoverRefusesLinkedJournal(t *testing.T) {
	path, f := foreignJournal(t)
	link := filepath.Join(t.TempDir(), "rocekit-journal.jsonl")
	os.Symlink(path, link)
	rep, err := recoverWith(context.Background(), link, func(string, string) system { return f })
	wantNotReplayed(t, f, rep, err, link)
}

// TestBeginDoesNotFollowLinks: a dangling journal link does not create
// its target, and a link to an empty file does not overwrite it.
func TestBeginDoesNotFollowLinks(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	empty := filepath.Join(victims, "empty")
	os.WriteFile(empty, nil, 0o600)
	for name, target := range map[string]string{"dangling": filepath.Join(victims, "new"), "empty": empty} {
		link := filepath.Join(dir, name)
		os.Symlink(target, link)
		s, err := begin(link, "/proc", "/sys", newFake())
		if err == nil {
			s.Close()
			t.Errorf("%s: Begin followed the link", name)
		} else if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: %v, want fs.ErrPermission", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(victims, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
	if b, _ := os.ReadFile(empty); len(b) != 0 {
		t.Errorf("the empty file was written: %q", b)
	}
}

// seqJournal journals MTU 9000 then MTU 4000 on eth0 (1500 before) and
// returns the journal's lines and path.
func seqJournal(t *testing.T) ([]string, string, *fakeSystem) {
	t.Helper()
	f := newFake()
	s := fakeSession(t, f)
	for _, mtu := range []int{9000, 4000} {
		if _, err := s.Apply(context.Background(), MTU("", "eth0", mtu)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	return lines[:len(lines)-1], s.Path(), f
}

// TestRecoverUndoesBySequence: lines out of order are undone by their
// sequence numbers, newest first, so the MTU is back at 1500, not left
// at 9000.
func TestRecoverUndoesBySequence(t *testing.T) {
	lines, path, f := seqJournal(t)
	// header, change 1, done 1, change 2, done 2 -> header, change 2, done 2, change 1, done 1
	reordered := strings.Join([]string{lines[0], lines[3], lines[4], lines[1], lines[2]}, "")
	os.WriteFile(path, []byte(reordered), 0o600)
	f.writes = nil
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	if err != nil {
		t.Fatalf("Recover: %v", err)
	}
	if d := cmp.Diff([]string{"mtu//eth0=mtu 9000", "mtu//eth0=mtu 1500"}, f.writes); d != "" {
		t.Errorf("undo writes (-want +got):\n%s", d)
	}
	if len(rep.Undone) != 2 || rep.Undone[0].Seq != 2 || rep.Undone[1].Seq != 1 {
		t.Errorf("undone %v", rep.Undone)
	}
	if got := f.get(t, "mtu//eth0"); got != "mtu 1500" {
		t.Errorf("eth0 left at %s", got)
	}
}

// TestReadJournalSequenceErrors: a missing or repeated change number is
// an error named as such.
func TestReadJournalSequenceErrors(t *testing.T) {
	lines, _, _ := seqJournal(t)
	dup := strings.Replace(lines[3], `"seq":2`, `"seq":1`, 2)
	for name, c := range map[string]struct {
		text, want string
	}{
		"missing #1":   {lines[0] + lines[3] + lines[4], "change #1 missing"},
		"#1 twice":     {lines[0] + lines[1] + lines[2] + dup, "change #1 twice"},
		"#2 before #1": {lines[0] + lines[3] + lines[1], ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseJournal("j", []byte(c.text))
			if c.want == "" {
				if err != nil {
					t.Errorf("in order by number: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrJournal) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want ErrJournal naming %q", err, c.want)
			}
		})
	}
}

// TestRecoverNamesSequenceGap: Recover of a journal with a change number
// missing says so, and undoes the changes it has.
func TestRecoverNamesSequenceGap(t *testing.T) {
	lines, path, f := seqJournal(t)
	os.WriteFile(path, []byte(lines[0]+lines[3]+lines[4]), 0o600)
	rep, err := recoverWith(context.Background(), path, func(string, string) system { return f })
	if !errors.Is(err, ErrJournal) || !strings.Contains(err.Error(), "change #1 missing") {
		t.Errorf("Recover = %v, want the gap named", err)
	}
	if len(rep.Undone) != 1 || rep.Undone[0].Seq != 2 {
		t.Errorf("undone %v", rep.Undone)
	}
}

// TestSessionMisuse: a zero or nil Session returns ErrNoSession, never
// panics.
func TestSessionMisuse(t *testing.T) {
	ctx := context.Background()
	var zero Session
	var null *Session
	for name, s := range map[string]*Session{"zero": &zero, "nil": null} {
		if _, err := s.Apply(ctx, MTU("", "eth0", 9000)); !errors.Is(err, ErrNoSession) {
			t.Errorf("%s Apply: %v", name, err)
		}
		if _, err := s.Restore(ctx); !errors.Is(err, ErrNoSession) {
			t.Errorf("%s Restore: %v", name, err)
		}
		if err := s.Close(); !errors.Is(err, ErrNoSession) {
			t.Errorf("%s Close: %v", name, err)
		}
		if e := s.Entries(); e != nil {
			t.Errorf("%s Entries: %v", name, e)
		}
		if p := s.Path(); p != "" {
			t.Errorf("%s Path: %q", name, p)
		}
	}
}

// TestSysctlRefusesControlCharacters: a value with a newline (the kernel
// would take its first line) or another control character is refused
// when set, as it is when undone; nothing is journaled or written.
func TestSysctlRefusesControlCharacters(t *testing.T) {
	opts, read := sysctlFixture(t)
	s, err := Begin(filepath.Join(t.TempDir(), "j.jsonl"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, v := range []string{"4194304\n1", "1\r2", "1\x1b[2", "4194304\n", "1\u20282", "1\x85"} {
		_, err := s.Apply(context.Background(), Sysctl("", "net.core.rmem_max", v))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "sysctl" {
			t.Errorf("%q: %v, want an *InputError", v, err)
		}
	}
	if len(s.Entries()) != 0 || read("net.core.rmem_max") != "212992\n" {
		t.Errorf("journaled %v, rmem_max %q", s.Entries(), read("net.core.rmem_max"))
	}
	// TABs and runs of blanks stay separators, as the kernel prints them.
	if _, err := s.Apply(context.Background(), Sysctl("", "net.ipv4.udp_mem", "1\t2  3")); err != nil || read("net.ipv4.udp_mem") != "1 2 3\n" {
		t.Errorf("udp_mem: %v, %q", err, read("net.ipv4.udp_mem"))
	}
	// The same rule on undo.
	bad := "1\n2"
	e := Entry{Seq: 1, Kind: KindSysctl, Target: Target{Key: "net.core.rmem_max"}, Old: Value{Sysctl: &bad}}
	if err := e.validateUndo(); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("undo of %q: %v", bad, err)
	}
}

// TestSysctlOnlyNetKeys: tune sets only the network stack's parameters;
// kernel.core_pattern (a free-text program run as root) and the like are
// refused when set and when a journal asks to write them back.
func TestSysctlOnlyNetKeys(t *testing.T) {
	for _, key := range []string{"kernel.core_pattern", "kernel/modprobe", "vm.swappiness", "fs.suid_dumpable", "netx.core.rmem_max"} {
		err := Sysctl("", key, "|/tmp/x").validate()
		if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "net.") {
			t.Errorf("set %s: %v", key, err)
		}
		v := "core"
		e := Entry{Seq: 1, Kind: KindSysctl, Target: Target{Key: key}, Old: Value{Sysctl: &v}}
		if err := e.validateUndo(); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("undo %s: %v", key, err)
		}
	}
	for _, key := range []string{"net.core.rmem_max", "net/ipv4/conf/eth0.100/rp_filter"} {
		if err := Sysctl("", key, "1").validate(); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	// Reading stays open: preflight reads kernel.* facts through other paths.
	if err := ValidateSysctlKey("kernel.osrelease"); err != nil {
		t.Errorf("ValidateSysctlKey(kernel.osrelease) = %v", err)
	}
}

// FuzzParseJournal: no input panics the journal reader, and what it
// reads without error writes back to the same journal.
func FuzzParseJournal(f *testing.F) {
	const (
		header = `{"rec":"header","time":"2026-12-01T10:00:00Z","version":1,"pid":4242,"proc_root":"/proc","sys_root":"/sys"}` + "\n"
		mtu    = `{"rec":"change","seq":1,"time":"2026-12-01T10:00:01Z","entry":{"seq":1,"kind":"mtu","target":{"netdev":"eth0"},"old":{"mtu":1500},"new":{"mtu":9000}}}` + "\n"
		done   = `{"rec":"done","seq":1,"time":"2026-12-01T10:00:01Z"}` + "\n"
		sysctl = `{"rec":"change","seq":2,"time":"2026-12-01T10:00:02Z","entry":{"seq":2,"kind":"sysctl","target":{"key":"net.core.rmem_max"},"old":{"sysctl":"212992"},"new":{"sysctl":"4194304"}}}` + "\n"
		undone = `{"rec":"restored","seq":2,"time":"2026-12-01T10:00:03Z"}` + "\n"
	)
	f.Add([]byte(header + mtu + done + sysctl + undone))
	const txq = `{"rec":"change","seq":3,"time":"2026-12-01T10:00:04Z","entry":{"seq":3,"kind":"txqueuelen","target":{"netdev":"eth0"},"old":{"ext": {"txqueuelen": 1000}},"new":{"ext":{"txqueuelen":5000}}}}` + "\n"
	f.Add([]byte(header + mtu + done + sysctl + undone + txq))
	f.Add([]byte(header + sysctl + mtu + done))
	f.Add([]byte(header + mtu + done + mtu))
	f.Add([]byte(header + sysctl[:40]))
	f.Add([]byte(header))
	f.Add([]byte("not a journal\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := parseJournal("j", b)
		if j.Good+int64(j.Torn) != int64(len(b)) {
			t.Fatalf("good %d + torn %d != %d bytes", j.Good, j.Torn, len(b))
		}
		if err != nil || j.Version == 0 {
			return
		}
		again, err := parseJournal("j", formatJournal(t, j))
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		again.Good, again.Torn, j.Good, j.Torn = 0, 0, 0, 0
		if d := cmp.Diff(j, again); d != "" {
			t.Fatalf("round trip (-read +again):\n%s", d)
		}
	})
}

// formatJournal writes j as its writer would: the header, then each
// change with its marks.
func formatJournal(t *testing.T, j Journal) []byte {
	var b bytes.Buffer
	add := func(r record) {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	add(record{Rec: recHeader, Version: j.Version, PID: j.PID, ProcRoot: j.Root.ProcDir(), SysRoot: j.Root.SysDir()})
	for _, e := range j.Entries {
		add(record{Rec: recChange, Seq: e.Seq, Entry: &e})
		if e.Done {
			add(record{Rec: recDone, Seq: e.Seq})
		}
		if e.Restored {
			add(record{Rec: recRestored, Seq: e.Seq})
		}
	}
	return b.Bytes()
}
