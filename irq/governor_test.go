package irq

import (
	"errors"
	"testing"
)

func TestGovernors(t *testing.T) {
	fs := fixtureFS(t, "mlx5-2node")
	g, err := fs.Governors()
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 96 || g[0] != (CPUGovernor{0, "powersave"}) || g[95] != (CPUGovernor{95, "powersave"}) {
		t.Errorf("Governors = %v", g)
	}
	av, err := fs.AvailableGovernors(7)
	if err != nil || len(av) != 2 || av[0] != "performance" {
		t.Errorf("AvailableGovernors = %v, %v", av, err)
	}
}

// TestGovernorsAbsent: the guests and the host have no cpufreq; that
// absence is a captured fixture.
func TestGovernorsAbsent(t *testing.T) {
	for _, tree := range []string{"bookworm", "trixie", "host"} {
		fs := fixtureFS(t, tree)
		g, err := fs.Governors()
		var ge *GovernorError
		if !errors.Is(err, ErrNoCpufreq) || !errors.As(err, &ge) || ge.CPU != 0 || len(g) != 0 {
			t.Errorf("%s: Governors = %v, %v; want ErrNoCpufreq for cpu0", tree, g, err)
		}
		if _, err := fs.Governor(1); !errors.Is(err, ErrNoCpufreq) {
			t.Errorf("%s: Governor(1) err = %v", tree, err)
		}
		if _, err := fs.AvailableGovernors(1); !errors.Is(err, ErrNoCpufreq) {
			t.Errorf("%s: AvailableGovernors(1) err = %v", tree, err)
		}
	}
}
