package kmsg

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/rocekit/rocekit/host"
)

const eagain = "dd: error reading '/dev/kmsg': Resource temporarily unavailable\n"

func TestReadKmsgEndsAtEAGAIN(t *testing.T) {
	f := &host.Fake{Scripts: map[string]host.FakeScript{
		"dd": {Stdout: "6,7,1000,-;eth0: renamed from veth1\n SUBSYSTEM=net\n4,8,2000,-;mlx5_core 0000:3b:00.0: cmd_exec timeout\n", Stderr: eagain, ExitCode: 1},
	}}
	l, err := Read(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 2 || l.Records[1].Seq != 8 || l.Records[0].Subsystem != "net" {
		t.Errorf("records %+v", l.Records)
	}
	if argvs := f.Argvs(); len(argvs) != 1 || !slices.Equal(argvs[0], KmsgArgv) {
		t.Errorf("ran %q", argvs)
	}
}

func TestReadPermission(t *testing.T) {
	f := &host.Fake{Scripts: map[string]host.FakeScript{
		"dd": {Stderr: "dd: failed to open '/dev/kmsg': Operation not permitted\n", ExitCode: 1},
	}}
	_, err := Read(context.Background(), f)
	if !errors.Is(err, ErrPermission) || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("err %v, want ErrPermission", err)
	}
	if n := len(f.Argvs()); n != 1 {
		t.Errorf("%d commands; a permission error must not fall back", n)
	}
	f = &host.Fake{Scripts: map[string]host.FakeScript{
		"dmesg": {Stderr: "dmesg: read kernel buffer failed: Operation not permitted\n", ExitCode: 1},
	}}
	if _, err := ReadWith(context.Background(), f, MethodDmesg); !errors.Is(err, ErrPermission) {
		t.Fatalf("dmesg: err %v, want ErrPermission", err)
	}
}

// TestReadFallsBackToDmesg: without dd, or with a dd that knows no
// iflag=nonblock (busybox), Read runs dmesg -r.
func TestReadFallsBackToDmesg(t *testing.T) {
	dmesg := host.FakeScript{Stdout: "<6>[   14.281890] infiniband rxe0: set active\n<11>[   14.504259] rocekit-test: injected\n"}
	for name, dd := range map[string]host.FakeScript{
		"no dd":      {StartErr: exec.ErrNotFound},
		"busybox dd": {Stderr: "dd: invalid argument 'nonblock'\n", ExitCode: 1},
	} {
		f := &host.Fake{Scripts: map[string]host.FakeScript{"dd": dd, "dmesg": dmesg}}
		l, err := Read(context.Background(), f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(l.Records) != 2 || l.Records[1].Facility != 1 || l.Records[1].Priority != 3 {
			t.Errorf("%s: records %+v", name, l.Records)
		}
		if argvs := f.Argvs(); len(argvs) != 2 || !slices.Equal(argvs[1], DmesgArgv) {
			t.Errorf("%s: ran %q", name, argvs)
		}
	}
	f := &host.Fake{Scripts: map[string]host.FakeScript{"dd": {StartErr: exec.ErrNotFound}}}
	if _, err := ReadWith(context.Background(), f, MethodKmsg); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("MethodKmsg without dd: %v", err)
	}
}
