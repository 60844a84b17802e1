package rxe

import (
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/vishvananda/netns"
)

// newNetns creates a fresh named network namespace (rxetest-...) and
// deletes it when the test ends. The calling thread stays where it was.
func newNetns(t *testing.T, suffix string) (string, netns.NsHandle) {
	t.Helper()
	n := labtest.NewNamedNetns(t, "rxetest", suffix)
	return n.Name, n.NS
}
