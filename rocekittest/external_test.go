package rocekittest_test

import (
	"context"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExternalModule is issue 16's "done when": a module outside the
// repository (a temporary one with a replace to this checkout) unit-tests
// its own orchestration code with the kit, five trials (a successful
// pair, a connect failure, a header mismatch, a netserver that is not
// there, a UDP run with loss), without copying a capture and without root.
// Its code is testdata/usermodule; the trials must each pass. Issue 25's
// "done when": TestSoftRoCEStep runs a workflow.RunPerftest step on
// fakes in at most 15 lines (testdata/usermodule/step_test.go.txt).
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	files := map[string]string{}
	for _, f := range []string{"fw.go", "fw_test.go", "step_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "usermodule", f+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	out := testUserModule(t, files)
	for _, trial := range []string{"TestSuccessfulPair", "TestConnectFailure", "TestHeaderMismatch", "TestNoNetserver", "TestUDPLoss", "TestSoftRoCEStep"} {
		if !strings.Contains(out, "--- PASS: "+trial) {
			t.Errorf("%s did not pass:\n%s", trial, out)
		}
	}
	t.Logf("%s", out)
}

// testUserModule writes files into a temporary module example.com/fw
// whose go.mod replaces rocekit with this checkout, as a user's module
// outside the repository would require it, and returns what
// `go test -count=1 -v .` printed there after `go mod tidy`; a failing go
// command fails t.
func testUserModule(t *testing.T, files map[string]string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/fw\n\ngo 1.26\n\nrequire github.com/rocekit/rocekit v0.0.0\n\nreplace github.com/rocekit/rocekit => " + checkout + "\n"
	files["go.mod"] = gomod
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	return run("test", "-count=1", "-v", ".")
}
