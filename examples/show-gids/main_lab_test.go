//go:build lab

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/internal/labtest"
)

// TestLabShowGIDs runs the command on a live rxe device.
func TestLabShowGIDs(t *testing.T) {
	labtest.Guest(t)
	for _, c := range [][]string{
		{"ip", "link", "add", "sgv0", "type", "veth", "peer", "name", "sgv1"},
		{"ip", "addr", "add", "198.18.28.1/24", "dev", "sgv0"},
		{"ip", "link", "set", "sgv0", "up"},
		{"ip", "link", "set", "sgv1", "up"},
		{"rdma", "link", "add", "sgrxe0", "type", "rxe", "netdev", "sgv0"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command("rdma", "link", "delete", "sgrxe0").Run()
		exec.Command("ip", "link", "delete", "sgv0").Run()
	})
	want := "sgrxe0\t1\t1\t0000:0000:0000:0000:0000:ffff:c612:1c01\t198.18.28.1  \tv2\tsgv0\n"
	var out bytes.Buffer
	for i := 0; i < 50 && !strings.Contains(out.String(), want); i++ { // the GID table fills asynchronously
		time.Sleep(100 * time.Millisecond)
		out.Reset()
		if err := run([]string{"-select", "perftest-pairwise", "sgrxe0"}, &out, dirRoot); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "sgrxe0/1: perftest-pairwise picks index 1:") {
		t.Errorf("output:\n%s\nwant a line %q", out.String(), want)
	}
	t.Logf("\n%s", out.String())
}
