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

// TestExternalUDPRound is issue 25's "done when" for the netperf round: a
// module outside the repository (a temporary one with a replace to this
// checkout) runs a UDP round of the library step (workflow.RunUDPRounds)
// on fakes in a test of a few lines (testdata/usermodule-udp), without
// root, and finds the loss the fake played.
func TestExternalUDPRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "usermodule-udp", "udp_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, test, _ := strings.Cut(string(body), "func TestUDPRound"); strings.Count(test, "\n") > 15+1 {
		t.Errorf("the external UDP round test is %d lines, want at most 15", strings.Count(test, "\n")-1)
	}
	dir := t.TempDir()
	gomod := "module example.com/fw\n\ngo 1.26\n\nrequire github.com/rocekit/rocekit v0.0.0\n\nreplace github.com/rocekit/rocekit => " + checkout + "\n"
	for name, data := range map[string]string{"go.mod": gomod, "fw.go": "// Package fw is a user's framework.\npackage fw\n", "udp_test.go": string(body)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
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
	if out := run("test", "-count=1", "-v", "."); !strings.Contains(out, "--- PASS: TestUDPRound") {
		t.Errorf("TestUDPRound did not pass:\n%s", out)
	}
}
