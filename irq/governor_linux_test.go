package irq

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSetGovernor(t *testing.T) {
	fs, dir := copyTree(t, "mlx5-2node")
	replaced, err := fs.SetGovernor(CPUList{24, 25}, "performance")
	if err != nil {
		t.Fatal(err)
	}
	want := []CPUGovernor{{24, "powersave"}, {25, "powersave"}}
	if diff := cmp.Diff(want, replaced); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	if g, _ := fs.Governor(25); g != "performance" {
		t.Errorf("cpu25 governor %q", g)
	}
	if g, _ := fs.Governor(26); g != "powersave" {
		t.Errorf("cpu26 governor %q changed", g)
	}
	// Restore with what was replaced.
	back, err := fs.SetGovernors(replaced)
	if err != nil || back[0].Governor != "performance" {
		t.Errorf("restore replaced %v, %v", back, err)
	}
	b, _ := os.ReadFile(dir + "/sys/devices/system/cpu/cpu24/cpufreq/scaling_governor")
	if string(b) != "powersave\n" {
		t.Errorf("cpu24 file %q after restore", b)
	}
	// A governor the driver does not offer is refused before writing.
	replaced, err = fs.SetGovernor(CPUList{1}, "ondemand")
	var ge *GovernorError
	if !errors.As(err, &ge) || ge.CPU != 1 || ge.Governor != "ondemand" || len(replaced) != 0 {
		t.Errorf("ondemand: %v, %v", replaced, err)
	}
	// Without cpufreq, nothing is replaced.
	g, _ := copyTree(t, "bookworm")
	if r, err := g.SetGovernor(CPUList{0}, "performance"); !errors.Is(err, ErrNoCpufreq) || len(r) != 0 {
		t.Errorf("bookworm: %v, %v", r, err)
	}
}
