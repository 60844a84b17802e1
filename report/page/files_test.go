package page

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFilesDoesNotFollowLinks: links planted in the folder as
// report.html and as the temporary name report.html.tmp are not written
// through: their targets keep their content, report.html is the page.
func TestWriteFilesDoesNotFollowLinks(t *testing.T) {
	dir, victims := t.TempDir(), t.TempDir()
	for _, n := range []string{"report.html", "report.html.tmp", "rounds.svg.tmp"} {
		v := filepath.Join(victims, n)
		os.WriteFile(v, []byte("theirs"), 0o644)
		os.Symlink(v, filepath.Join(dir, n))
	}
	if err := WriteFiles(dir, Page{Title: "t", Sections: []Section{demoSection(t, "mtu-sweep")}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"report.html", "report.html.tmp", "rounds.svg.tmp"} {
		if b, _ := os.ReadFile(filepath.Join(victims, n)); string(b) != "theirs" {
			t.Errorf("%s written through its link: %.40q", n, b)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "report.html")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("report.html: %v %v", fi, err)
	}
}

// TestWriteFilesRefusesOpenFolder: a folder others can write (no sticky
// bit) is not written into.
func TestWriteFilesRefusesOpenFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o700)
	os.Chmod(dir, 0o777)
	if err := WriteFiles(dir, Page{Title: "t"}); err == nil {
		t.Error("wrote into a folder anyone can write")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}
