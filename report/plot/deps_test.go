package plot

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReportDoesNotLinkGonum checks what this package exists for:
// importing report does not link gonum/plot or its fonts and PDF writer.
func TestReportDoesNotLinkGonum(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot list report's dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/rocekit/rocekit/report").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := string(out)
	if !strings.Contains(deps, "golang.org/x/perf/benchmath") {
		t.Fatalf("go list -deps report lacks benchmath: the listing is wrong:\n%s", deps)
	}
	for _, bad := range []string{"gonum.org/v1/plot", "go-fonts", "go-pdf", "go-latex", "golang/freetype", "svgo"} {
		if strings.Contains(deps, bad) {
			t.Errorf("report links %s", bad)
		}
	}
}
