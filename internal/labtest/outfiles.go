package labtest

import (
	"os"
	"path/filepath"
	"testing"
)

// CheckOutFiles checks an example's -out folder: report.md is what the
// example printed, and each of names (the plot, the archives) is there
// and not empty.
func CheckOutFiles(t *testing.T, out, printed string, names ...string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report.md:\n%s", md)
	if string(md) != printed {
		t.Errorf("report.md differs from what was printed")
	}
	for _, name := range names {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("-out: %s: %v", name, err)
		}
	}
}
