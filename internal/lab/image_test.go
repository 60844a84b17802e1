package lab

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestImageKeyStableAndSensitive(t *testing.T) {
	a := DefaultSpec("bookworm")
	// Order, duplicates and the mirror do not change the content.
	b := DefaultSpec("bookworm")
	b.Packages = append([]string{"procps"}, b.Packages...)
	for i, j := 0, len(b.Packages)-1; i < j; i, j = i+1, j-1 {
		b.Packages[i], b.Packages[j] = b.Packages[j], b.Packages[i]
	}
	b.Mirror = "http://mirror.example/debian"
	if a.Key() != b.Key() {
		t.Errorf("same content, different keys: %s %s", a.Key(), b.Key())
	}
	// This value pins the key format: a change here invalidates every
	// cached image, which is only right when imageFormat changes too.
	if got, want := a.Key(), "f2f6bd11a440c271"; got != want { // the package list with nftables and Slurm
		t.Errorf("Key() = %q, want %q", got, want)
	}
	for name, change := range map[string]func(*ImageSpec){
		"suite":     func(s *ImageSpec) { s.Suite = "trixie" },
		"package":   func(s *ImageSpec) { s.Packages = append(s.Packages, "iputils-ping") },
		"component": func(s *ImageSpec) { s.Components = []string{"main"} },
		"modules":   func(s *ImageSpec) { s.ModuleDirs = s.ModuleDirs[1:] },
	} {
		c := DefaultSpec("bookworm")
		change(&c)
		if c.Key() == a.Key() {
			t.Errorf("changing the %s kept key %s", name, a.Key())
		}
	}
	if a.Name() != "bookworm-"+a.Key() {
		t.Errorf("Name() = %q", a.Name())
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []ImageSpec{
		{Suite: "", Packages: []string{"x"}},
		{Suite: "../etc", Packages: []string{"x"}},
		{Suite: "bookworm"},
		{Suite: "bookworm", Packages: []string{"a,b"}},
	} {
		if s.Validate() == nil {
			t.Errorf("spec %+v accepted", s)
		}
	}
	if err := DefaultSpec("trixie").Validate(); err != nil {
		t.Error(err)
	}
}

func TestCacheLookup(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	spec := DefaultSpec("bookworm")
	if _, err := c.Lookup(spec); !errors.Is(err, ErrImageMissing) {
		t.Fatalf("empty cache: err = %v, want ErrImageMissing", err)
	}
	dir := filepath.Join(c.Dir, spec.Name())
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, manifestFile), []byte(`{"suite":"bookworm","kernel_release":"6.1.0-50-amd64"}`), 0o644)
	if _, err := c.Lookup(spec); err == nil || errors.Is(err, ErrImageMissing) {
		t.Fatalf("image without kernel: err = %v, want an incomplete-image error", err)
	}
	os.WriteFile(filepath.Join(dir, kernelFile), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(dir, initrdFile), []byte("i"), 0o644)
	img, err := c.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	if img.Manifest.KernelRelease != "6.1.0-50-amd64" || img.Kernel != filepath.Join(dir, "vmlinuz") {
		t.Errorf("image = %+v", img)
	}
}

func TestCachePrune(t *testing.T) {
	dir := t.TempDir()
	cur := DefaultSpec("trixie")
	old := DefaultSpec("trixie")
	old.Packages = append(old.Packages, "tcpdump")
	other := DefaultSpec("bookworm")
	for _, name := range []string{cur.Name(), old.Name(), other.Name(), "trixie-notakey", ".build-" + old.Name() + "-1"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, manifestFile), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Cache{Dir: dir}.Prune([]ImageSpec{cur})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || filepath.Base(removed[0]) != old.Name() {
		t.Errorf("removed %v, want only %s", removed, old.Name())
	}
	for _, name := range []string{cur.Name(), other.Name(), "trixie-notakey", ".build-" + old.Name() + "-1"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}
