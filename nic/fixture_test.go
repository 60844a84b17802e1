package nic

import (
	"bufio"
	"strings"
	"testing"
)

var suites = []string{"bookworm", "trixie"}

func suiteCapture(t testing.TB, suite string) map[string]*scenario {
	return loadCapture(t, "testdata/"+suite+"/capture.txt.gz")
}

// ethtoolStats reads the captured text of `ethtool -S` into name → value,
// the way the ioctl returns them.
func ethtoolStats(t testing.TB, out string) map[string]uint64 {
	t.Helper()
	m := map[string]uint64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ": ")
		if !ok || name == "NIC statistics" {
			continue
		}
		var n uint64
		for _, c := range v {
			if c < '0' || c > '9' {
				t.Fatalf("ethtool -S line %q", sc.Text())
			}
			n = n*10 + uint64(c-'0')
		}
		m[name] = n
	}
	return m
}
