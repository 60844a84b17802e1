package labtest

import (
	"os/exec"
	"strings"
	"testing"
)

// IP runs ip(8) with args and fails the test with its output when it
// fails.
//
// Similar to: ip ARGS || exit 1
func IP(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// Veth creates the veth pair a–b, gives a the address cidr
// ("198.18.90.1/24"), sets both up, and deletes the pair when the test
// ends.
//
// Similar to: ip link add A type veth peer name B; ip addr add CIDR dev A; ip link set A up; ip link set B up
func Veth(t testing.TB, a, b, cidr string) {
	t.Helper()
	Root(t)
	for _, args := range [][]string{
		{"link", "add", a, "type", "veth", "peer", "name", b},
		{"addr", "add", cidr, "dev", a},
		{"link", "set", a, "up"},
		{"link", "set", b, "up"},
	} {
		IP(t, args...)
		if args[0] == "link" && args[1] == "add" {
			t.Cleanup(func() { exec.Command("ip", "link", "del", a).Run() })
		}
	}
}
