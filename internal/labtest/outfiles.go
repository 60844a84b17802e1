package labtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckOutFiles checks an example's -out folder: report.md is the answers
// block (report.WriteAnswersMarkdown, written first in the file once the
// verdicts are known) followed by what the example printed, and each of
// names (the plot, the archives) is there and not empty.
func CheckOutFiles(t *testing.T, out, printed string, names ...string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report.md:\n%s", md)
	body, ok := strings.CutPrefix(string(md), "## Answers\n\n")
	if !ok {
		t.Errorf("report.md does not open with the answers")
	} else if i := strings.Index(body, "\n\n"); i < 0 || body[i+2:] != printed {
		t.Errorf("report.md after the answers differs from what was printed")
	}
	for _, name := range names {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("-out: %s: %v", name, err)
		}
	}
}
