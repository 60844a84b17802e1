package labtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// CheckRestored fails the test if the rxe link named rxe is still there or
// netdev's MTU is not mtu: what a run that restores on exit must leave.
func CheckRestored(t testing.TB, rxe, netdev string, mtu string) {
	t.Helper()
	if out, _ := exec.Command("rdma", "link", "show").CombinedOutput(); strings.Contains(string(out), rxe+"/") {
		t.Errorf("the rxe link %s was left: %s", rxe, out)
	}
	if got, err := os.ReadFile("/sys/class/net/" + netdev + "/mtu"); err != nil || strings.TrimSpace(string(got)) != mtu {
		t.Errorf("%s MTU %q (%v), want %s", netdev, got, err, mtu)
	}
}
