package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archiveFixture is the bookworm send-bw capture as a round with its raw
// outputs and the interrupt snapshots of a guest run before and after.
func archiveFixture(t testing.TB) (Round, []ArchiveFile) {
	r, err := FromPerftest("send_bw", t0, perftestFixture(t, "bookworm", "send-bw", "client"))
	if err != nil {
		t.Fatal(err)
	}
	r.Fingerprint = sampleFingerprint(1500, 1024)
	r.Fingerprint.Argv = []SideArgv{
		{Role: "server", Host: "vm-a", Argv: strings.Fields("ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515")},
		{Role: "client", Host: "vm-b", Argv: strings.Fields("ib_send_bw -d rxe0 -x 1 -F -n 300 -p 18515 198.18.0.1")},
	}
	var files []ArchiveFile
	for _, f := range []string{"client.stdout", "client.stderr", "server.stdout", "server.stderr"} {
		p := "raw/0/" + f
		files = append(files, ArchiveFile{p, fixture(t, "bookworm", "perftest", "send-bw", f)})
		role, stream, _ := strings.Cut(f, ".")
		r.Outputs = append(r.Outputs, Output{Repeat: 0, Role: role, Stream: stream, Path: p})
	}
	for _, when := range []string{"before", "after"} {
		b, err := os.ReadFile(filepath.Join("..", "irq", "testdata", "trixie", "traffic", when, "proc", "interrupts"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ArchiveFile{"snapshots/" + when + "/interrupts", b})
	}
	return r, files
}

func TestArchiveRoundTrip(t *testing.T) {
	r, files := archiveFixture(t)
	var a, b bytes.Buffer
	if err := WriteArchive(&a, r, files); err != nil {
		t.Fatal(err)
	}
	if err := WriteArchive(&b, r, files); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same round gave two different archives")
	}
	got, gotFiles, err := ReadArchive(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	diff(t, r, got)
	var names []string
	byName := map[string][]byte{}
	for _, f := range gotFiles {
		names = append(names, f.Name)
		byName[f.Name] = f.Data
	}
	diff(t, []string{ArchiveFingerprint, ArchiveArgv, ArchiveRerun, ArchiveMarkdown,
		"raw/0/client.stdout", "raw/0/client.stderr", "raw/0/server.stdout", "raw/0/server.stderr",
		"snapshots/before/interrupts", "snapshots/after/interrupts"}, names)
	if !bytes.Equal(byName["raw/0/client.stdout"], files[0].Data) {
		t.Error("raw output changed in the archive")
	}
	golden(t, "archive/rerun.sh", byName[ArchiveRerun])
	golden(t, "archive/argv.txt", byName[ArchiveArgv])
	golden(t, "archive/report.md", byName[ArchiveMarkdown])
}

func TestArchiveRejects(t *testing.T) {
	r, _ := archiveFixture(t)
	for _, name := range []string{"/etc/passwd", "../x", "a/../../x", "", "round.json", "a//b"} {
		err := WriteArchive(&bytes.Buffer{}, r, []ArchiveFile{{name, nil}})
		if !errors.Is(err, ErrArchive) {
			t.Errorf("%q: %v", name, err)
		}
	}
	if _, _, err := ReadArchive(strings.NewReader("not gzip")); !errors.Is(err, ErrArchive) {
		t.Errorf("garbage: %v", err)
	}
	var buf bytes.Buffer
	WriteArchive(&buf, r, nil)
	cut := buf.Bytes()[:buf.Len()/2]
	if _, _, err := ReadArchive(bytes.NewReader(cut)); !errors.Is(err, ErrArchive) {
		t.Errorf("truncated: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	diff(t, []string{"ib_send_bw", "'a b'", `'it'\''s'`, "''", "--report_gbits", "198.18.0.1"},
		[]string{shellQuote("ib_send_bw"), shellQuote("a b"), shellQuote("it's"), shellQuote(""), shellQuote("--report_gbits"), shellQuote("198.18.0.1")})
}

func FuzzReadArchive(f *testing.F) {
	r, files := archiveFixture(f)
	var buf bytes.Buffer
	if err := WriteArchive(&buf, r, files[:1]); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		round, _, err := ReadArchive(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrArchive) {
				t.Fatalf("error %v does not wrap ErrArchive", err)
			}
			return
		}
		if err := round.Validate(); err != nil {
			t.Fatalf("read an invalid round: %v", err)
		}
	})
}

func TestJSONFile(t *testing.T) {
	f, err := JSONFile("snapshots/before/governors.json", map[string]string{"cpu0": "performance"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, ArchiveFile{"snapshots/before/governors.json", []byte("{\n  \"cpu0\": \"performance\"\n}\n")}, f)
	if _, err := JSONFile("x", func() {}); err == nil {
		t.Error("a func encoded")
	}
}
