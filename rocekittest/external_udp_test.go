package rocekittest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	body, err := os.ReadFile(filepath.Join("testdata", "usermodule-udp", "udp_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, test, _ := strings.Cut(string(body), "func TestUDPRound"); strings.Count(test, "\n") > 15+1 {
		t.Errorf("the external UDP round test is %d lines, want at most 15", strings.Count(test, "\n")-1)
	}
	out := testUserModule(t, map[string]string{"fw.go": "// Package fw is a user's framework.\npackage fw\n", "udp_test.go": string(body)})
	if !strings.Contains(out, "--- PASS: TestUDPRound") {
		t.Errorf("TestUDPRound did not pass:\n%s", out)
	}
}
