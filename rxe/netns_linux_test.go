package rxe

import (
	"fmt"
	"os"
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netns"
)

// newNetns creates a fresh named network namespace (rxetest-...) and
// deletes it when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) (string, netns.NsHandle) {
	t.Helper()
	name := fmt.Sprintf("rxetest-%s-%d", suffix, os.Getpid())
	ns, _ := labtest.Netns(t, name)
	return name, ns
}
