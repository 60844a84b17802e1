package irq

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/rocekit/rocekit/sysroot"
)

// TestHostNotExist: on the host's real /proc and /sys, a netdev without a
// device (lo) gives ErrNoDevice, a netdev that does not exist and a CPU
// without cpufreq give errors that fs.ErrNotExist matches too.
func TestHostNotExist(t *testing.T) {
	host := Root(sysroot.ProcSys("", ""))
	if _, err := host.Netdev("lo"); !errors.Is(err, ErrNoDevice) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Netdev(lo) = %v, want ErrNoDevice and fs.ErrNotExist", err)
	}
	name := fmt.Sprintf("nosuch%d", os.Getpid()%100000)
	if _, err := host.Netdev(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Netdev(%s) = %v, want fs.ErrNotExist", name, err)
	}
	// A /sys without cpufreq, as in most VMs: a real directory that has
	// no devices/system/cpu.
	bare := Root(sysroot.ProcSys("/proc", t.TempDir()))
	if _, err := bare.Governor(0); !errors.Is(err, ErrNoCpufreq) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Governor(0) without cpufreq = %v, want ErrNoCpufreq and fs.ErrNotExist", err)
	}
}
