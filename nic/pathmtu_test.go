package nic

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

var activeMTU = regexp.MustCompile(`active_mtu:\s+(\d+)`)

// TestRXEPathMTUMatchesKernel checks RXEPathMTU against the active_mtu
// ibv_devinfo printed for rxe0 after each `ip link set v0 mtu M` in the lab.
func TestRXEPathMTUMatchesKernel(t *testing.T) {
	for _, s := range suites {
		cmds := suiteCapture(t, s)["after-udp-loss"].Cmds // the MTU loop ran after the last scenario header
		n := 0
		for _, m := range []int{1500, 1103, 1104, 4175, 4176, 9000} {
			out, ok := cmds[fmt.Sprintf("rxe-active-mtu-%d", m)]
			g := activeMTU.FindStringSubmatch(out)
			if !ok || g == nil {
				t.Fatalf("%s: no active_mtu for %d in %q", s, m, out)
			}
			kernel, _ := strconv.Atoi(g[1])
			if got := RXEPathMTU(m); got != kernel {
				t.Errorf("%s: RXEPathMTU(%d) = %d, rdma_rxe says %d", s, m, got, kernel)
			}
			n++
		}
		if n != 6 {
			t.Errorf("%s: %d MTUs checked", s, n)
		}
	}
}

func TestRoCEPathMTU(t *testing.T) {
	for mtu, want := range map[int]int{
		9000: 4096, 4200: 4096, 4192: 4096, 4191: 2048, 2144: 2048, 2143: 1024,
		1500: 1024, 1120: 1024, 1119: 512, 608: 512, 352: 256, 351: 0, 68: 0,
	} {
		if got := RoCEPathMTU(mtu); got != want {
			t.Errorf("RoCEPathMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
	for mtu, want := range map[int]int{68: 256, 335: 256, 336: 256, 591: 256, 592: 512} {
		if got := RXEPathMTU(mtu); got != want {
			t.Errorf("RXEPathMTU(%d) = %d, want %d", mtu, got, want)
		}
	}
}

func TestCheckPerftestMTU(t *testing.T) {
	// Both ends at 9000: perftest must print 4096.
	if err := CheckPerftestMTU(4096, RXEPathMTU(9000), RXEPathMTU(9000)); err != nil {
		t.Errorf("9000/9000: %v", err)
	}
	// One end still at 1500: perftest uses the smaller MTU, 1024, so a
	// header saying 4096 means something else changed.
	err := CheckPerftestMTU(4096, RXEPathMTU(9000), RXEPathMTU(1500))
	var pe *PathMTUError
	if !errors.Is(err, ErrPathMTU) || !errors.As(err, &pe) || pe.ExpectedBytes != 1024 {
		t.Errorf("9000/1500 reported 4096: %v", err)
	}
	if err.Error() != "nic: perftest reported MTU 4096, the ends' path MTUs (4096, 1024) give 1024" {
		t.Errorf("message %q", err)
	}
	if err := CheckPerftestMTU(1024, RXEPathMTU(9000), RXEPathMTU(1500)); err != nil {
		t.Errorf("9000/1500 reported 1024: %v", err)
	}
	if err := CheckPerftestMTU(1024); err == nil {
		t.Error("no ends: no error")
	}
}
