package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocekit/rocekit/host"
)

// TestFlagChecks: each shared check refuses what is out of its range
// with a *FlagError naming the flag, the value and the range, and takes
// its bounds.
func TestFlagChecks(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string // "" for nil
	}{
		{AtLeast("-count", -1, 1), "-count -1: want 1 or more"},
		{AtLeast("-count", 1, 1), ""},
		{IntRange("-qp-timeout", 99, 0, 31), "-qp-timeout 99: want 0 to 31"},
		{IntRange("-qp-timeout", 31, 0, 31), ""},
		{MTU("-mtu", 70000), "-mtu 70000: want 68 to 65535, or 0 to leave the MTU"},
		{MTU("-mtu", 67), "-mtu 67: want 68 to 65535, or 0 to leave the MTU"},
		{MTU("-mtu", 0), ""},
		{MTU("-mtu", 9000), ""},
		{Port("-port", 70000, 1), "-port 70000: want 1 to 65535, or 0 for the tool's default"},
		{Port("-port", 65535, 2), "-port 65535: want 1 to 65534 for 2 consecutive ports, or 0 for the tool's default"},
		{Port("-port", 0, 3), ""},
		{Port("-port", 18515, 3), ""},
		{Ratio("-min-ratio", 5), "-min-ratio 5: want more than 0 and at most 1"},
		{Ratio("-min-ratio", 0), "-min-ratio 0: want more than 0 and at most 1"},
		{Ratio("-min-ratio", 0.9), ""},
		{NotNegative("-line-rate", -1), "-line-rate -1: want 0 or more"},
		{NotNegative("-line-rate", 0), ""},
		{Duration("-soak", -5*time.Second), "-soak -5s: want 0 or more"},
		{Duration("-soak", 0), ""},
		{Netdev("-netdev", "eth0/../x"), `-netdev "eth0/../x": want a netdev name: 1 to 15 bytes, no '/', ':' or space`},
		{Netdev("-netdev", "a-very-long-netdev"), `-netdev "a-very-long-netdev": want a netdev name`},
		{Netdev("-netdev", ".."), `-netdev "..": want a netdev name`},
		{Netdev("-netdev", "enp3s0f0np0"), ""},
		{Governor("-governor", "perfomance"), `-governor "perfomance": want one of the kernel's governors: conservative, ondemand, performance, powersave, schedutil, userspace (did you mean "performance"?)`},
		{Governor("-governor", "performance"), ""},
	} {
		if tc.want == "" {
			if tc.err != nil {
				t.Errorf("refused: %v", tc.err)
			}
			continue
		}
		var fe *FlagError
		if !errors.As(tc.err, &fe) || !errors.Is(tc.err, ErrBadFlag) || !strings.HasPrefix(tc.err.Error(), tc.want) {
			t.Errorf("got %v, want a *FlagError %q", tc.err, tc.want)
		}
	}
}

// TestFlagsValidate: the shared flags are checked without touching the
// system: every refusal names its flag, and they are all said at once.
func TestFlagsValidate(t *testing.T) {
	good := Flags{Netdev: "eth0", Timeout: time.Minute, SSHTimeout: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	for _, tc := range []struct {
		f    Flags
		want []string
	}{
		{Flags{}, []string{"-netdev is required"}},
		{Flags{Netdev: "eth0", Timeout: -time.Second}, []string{"-timeout -1s: want 0 or more (0: no deadline)"}},
		{Flags{Netdev: "eth0", SSHTimeout: -time.Second}, []string{"-ssh-timeout -1s: want 0 or more"}},
		{Flags{Netdev: "eth 0", PeerNetdev: "x/y", Peer: "root@h"}, []string{`-netdev "eth 0"`, `-peer-netdev "x/y"`}},
		{Flags{Netdev: "eth0", Peer: "root@h", PeerNetns: "p"}, []string{"-peer and -peer-netns exclude each other"}},
		{Flags{Netdev: "eth0", PeerNetdev: "eth1"}, []string{"-peer-netdev needs -peer or -peer-netns"}},
	} {
		err := tc.f.Validate()
		if err == nil {
			t.Errorf("%+v: accepted", tc.f)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v, want %q", tc.f, err, w)
			}
		}
	}
}

// TestOfferedGovernors: a governor the CPUs' driver does not offer is
// refused, one every CPU offers passes, and a host without cpufreq has
// nothing to check (SetGovernor leaves it alone).
func TestOfferedGovernors(t *testing.T) {
	const cat = "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_available_governors"
	two := "performance powersave\nperformance powersave schedutil\n"
	for _, tc := range []struct {
		out     string
		exit    int
		gov     string
		wantErr string
	}{
		{two, 0, "performance", ""},
		{two, 0, "schedutil", `-governor "schedutil": want a governor every CPU of far offers: performance powersave`},
		{"", 1, "schedutil", ""},
	} {
		f := &host.Fake{Respond: func(c host.Cmd) host.FakeScript {
			if strings.Join(c.Argv, " ") != "sh -c "+cat {
				return host.FakeScript{ExitCode: 127, Stderr: "unexpected command"}
			}
			return host.FakeScript{Stdout: tc.out, ExitCode: tc.exit}
		}}
		err := CheckGovernorOffered(t.Context(), "-governor", tc.gov, map[string]host.Runner{"far": f})
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%q offered %q: %v, want %q", tc.gov, tc.out, err, tc.wantErr)
		}
	}
}

// TestExitCode: a refused flag exits 2, as flag.Parse does, among other
// refusals too; any other failure 1.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0}, {errors.New("netserver failed"), 1}, {AtLeast("-count", 0, 1), 2},
		{errors.Join(Usage("-netdev is required"), Duration("-soak", -1)), 2},
		{fmt.Errorf("round A: %w", errors.New("x")), 1},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestPerftestFlagChecks(t *testing.T) {
	for v, want := range map[int]string{-1: "-n -1: want 5 or more (perftest's minimum), or 0 for perftest's default", 4: "-n 4: want 5", 0: "", 5: ""} {
		if err := Iterations("-n", v); (want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Iterations(%d) = %v, want %q", v, err, want)
		}
	}
	if err := QPTimeout("-qp-timeout", 99); err == nil || err.Error() != "-qp-timeout 99: want 0 to 31" {
		t.Errorf("QPTimeout(99) = %v", err)
	}
	if _, err := ParseList("mtus", "1500,70000", 68, 65535); !errors.Is(err, ErrBadFlag) {
		t.Errorf("ParseList: %v does not match ErrBadFlag", err)
	}
}

func TestBadFlag(t *testing.T) {
	inner := errors.New(`-rounds: round B after C`)
	err := BadFlag(inner)
	if !errors.Is(err, ErrBadFlag) || !errors.Is(err, inner) || err.Error() != inner.Error() || BadFlag(nil) != nil {
		t.Errorf("BadFlag = %v", err)
	}
}
