package rxe

import (
	"net/netip"
	"regexp"
	"strconv"
	"testing"
)

// suites are the lab images the fixtures come from, with the link-local
// GID rxe0 got from v0's random MAC address in that capture.
var suites = []struct {
	name      string
	linkLocal string
	release   string
	module    string
}{
	{"bookworm", "fe80::2c46:1cff:fee4:8c8d", "6.1.0-50-amd64", "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko"},
	{"trixie", "fe80::5008:edff:fe3c:6b43", "6.12.117+deb13-amd64", "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz"},
}

func suiteCapture(t testing.TB, suite string) map[string]*scenario {
	return loadCapture(t, "testdata/"+suite+"/capture.txt.gz")
}

func gidOf(s string) GID { return GIDFromAddr(netip.MustParseAddr(s)) }

var gidIndexLine = regexp.MustCompile(`(?m)^ GID index\s*: (\d+)$`)

// perftestGIDIndex is the "GID index" perftest printed in a captured run.
func perftestGIDIndex(t *testing.T, sc *scenario) int {
	t.Helper()
	m := gidIndexLine.FindStringSubmatch(sc.Cmds["ib_send_bw"])
	if m == nil {
		t.Fatalf("no GID index line in the captured ib_send_bw output:\n%s", sc.Cmds["ib_send_bw"])
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
