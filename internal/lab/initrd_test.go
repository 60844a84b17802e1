package lab

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cavaliergopher/cpio"
	"github.com/google/go-cmp/cmp"
)

// entry is what a test reads back from an archive.
type entry struct {
	Name string
	Mode cpio.FileMode
	Body string
}

func readArchive(t *testing.T, r io.Reader) []entry {
	t.Helper()
	cr := cpio.NewReader(r)
	var out []entry
	for {
		hdr, err := cr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(cr)
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Mode&cpio.ModeType == cpio.TypeSymlink && len(body) == 0 {
			body = []byte(hdr.Linkname) // the reader moves a link's body here
		}
		out = append(out, entry{hdr.Name, hdr.Mode, string(body)})
	}
}

func TestWriteOverlay(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(bin, []byte("\x7fELF..."), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err := WriteOverlay(&buf, []OverlayFile{
		{Path: "/lab/plan.json", Data: []byte(`{"steps":[]}`)},
		{Path: "/init", Mode: 0o755, Source: bin},
		{Path: "/lab/bin/x.test", Mode: 0o755, Data: []byte("test")},
		{Path: "/lab/src/pkg", Mode: fs.ModeDir | 0o755},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{"init", cpio.TypeReg | 0o755, "\x7fELF..."},
		{"lab", cpio.TypeDir | 0o755, ""},
		{"lab/bin", cpio.TypeDir | 0o755, ""},
		{"lab/bin/x.test", cpio.TypeReg | 0o755, "test"},
		{"lab/plan.json", cpio.TypeReg | 0o644, `{"steps":[]}`},
		{"lab/src", cpio.TypeDir | 0o755, ""},
		{"lab/src/pkg", cpio.TypeDir | 0o755, ""},
	}
	if d := cmp.Diff(want, readArchive(t, &buf)); d != "" {
		t.Errorf("overlay (-want +got):\n%s", d)
	}
}

func TestWriteOverlayRejectsBadPaths(t *testing.T) {
	for _, p := range []string{"relative/file", "/", ""} {
		if err := WriteOverlay(io.Discard, []OverlayFile{{Path: p}}); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
	dir := t.TempDir()
	if err := WriteOverlay(io.Discard, []OverlayFile{{Path: "/x", Source: dir}}); err == nil {
		t.Error("a folder as source was accepted")
	}
}

func TestWriteTreeSkipsAndKeepsLinks(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"usr/bin", "usr/share/doc/pkg", "dev"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "usr/bin/tool"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/share/doc/pkg/README"), []byte("docs"), 0o644)
	os.Symlink("usr/bin", filepath.Join(root, "bin"))

	var buf bytes.Buffer
	w := cpio.NewWriter(&buf)
	if err := writeTree(w, root, skipInImage); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var names []string
	for _, e := range readArchive(t, &buf) {
		names = append(names, e.Name)
		if e.Name == "bin" && (e.Mode&cpio.ModeType != cpio.TypeSymlink || e.Body != "usr/bin") {
			t.Errorf("bin: mode %v body %q, want a link to usr/bin", e.Mode, e.Body)
		}
	}
	want := []string{"bin", "dev", "usr", "usr/bin", "usr/bin/tool", "usr/share", "usr/share/doc"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("archived names (-want +got):\n%s", d)
	}
}

func TestConcatInitrdPads(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	os.WriteFile(base, []byte("12345"), 0o644)
	dst := filepath.Join(dir, "out")
	if err := concatInitrd(dst, base, []byte("070701")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	if want := "12345\x00\x00\x00070701"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestKeepModule(t *testing.T) {
	keep := DefaultModuleDirs
	for rel, want := range map[string]bool{
		"drivers/infiniband/sw/rxe/rdma_rxe.ko":     true,
		"drivers/infiniband/core/ib_core.ko.xz":     true,
		"drivers/net/veth.ko.xz":                    true,
		"drivers/net/vethx.ko":                      false,
		"drivers/net/ethernet/intel/e1000/e1000.ko": false,
		"drivers/char/virtio_console.ko":            true,
		"net/ipv4/udp_tunnel.ko":                    true,
		"netfilter/x.ko":                            false,
		"sound/core/snd.ko":                         false,
	} {
		if got := keepModule(rel, keep); got != want {
			t.Errorf("keepModule(%q) = %v, want %v", rel, got, want)
		}
	}
}
