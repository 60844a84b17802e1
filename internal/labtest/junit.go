package labtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// JUnitCase is a test case as python3-junitparser read it back.
type JUnitCase struct {
	Name, Classname string
	Time            float64
	Results         []string // "Failure", "Error", "Skipped"; none when it passed
	Messages        []string
}

// JUnitSuite is a test suite as python3-junitparser read it back.
type JUnitSuite struct {
	Name                             string
	Tests, Failures, Errors, Skipped int
	Cases                            []JUnitCase
}

// junitXSD is the schema Jenkins' xunit plugin validates with, in the
// shared reference corpus beside the checkout (read there, not copied in).
func junitXSD() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "../../../shared/reference/junit-10.xsd")
}

// CheckJUnit validates a JUnit XML document with xmllint against
// junit-10.xsd and returns what Debian's python3-junitparser reads from
// it. It skips when the schema or the tools are absent (make deps
// installs libxml2-utils and python3-junitparser).
func CheckJUnit(t testing.TB, doc []byte) []JUnitSuite {
	t.Helper()
	xsd := junitXSD()
	if _, err := os.Stat(xsd); err != nil {
		t.Skipf("%s is absent", xsd)
	}
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("no xmllint (Debian package libxml2-utils)")
	}
	// Debian's python3, where python3-junitparser installs (a python3
	// earlier in PATH, such as pyenv's, does not see it).
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import junitparser").Run(); err != nil {
		t.Skip("no python3-junitparser (Debian package) for /usr/bin/python3")
	}
	p := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(p, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "xmllint", "--noout", "--schema", xsd, p).CombinedOutput(); err != nil {
		t.Fatalf("xmllint --schema junit-10.xsd: %v\n%s\n%s", err, out, doc)
	}
	const script = `
import json, sys
from junitparser import JUnitXml
out = []
for s in JUnitXml.fromfile(sys.argv[1]):
    cases = [{"name": c.name, "classname": c.classname, "time": c.time,
              "results": [type(r).__name__ for r in c.result],
              "messages": [r.message for r in c.result]} for c in s]
    out.append({"name": s.name, "tests": s.tests, "failures": s.failures,
                "errors": s.errors, "skipped": s.skipped, "cases": cases})
print(json.dumps(out))
`
	raw, err := exec.CommandContext(ctx, python, "-c", script, p).Output()
	if err != nil {
		t.Fatalf("junitparser: %v", err)
	}
	var suites []JUnitSuite
	if err := json.Unmarshal(raw, &suites); err != nil {
		t.Fatalf("junitparser's answer %s: %v", raw, err)
	}
	return suites
}
