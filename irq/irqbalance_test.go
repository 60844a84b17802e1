package irq

import (
	"errors"
	"testing"
)

func TestIRQBalance(t *testing.T) {
	pids, err := fixtureFS(t, "mlx5-2node").IRQBalance()
	if err != nil || len(pids) != 1 || pids[0] != 4242 {
		t.Errorf("mlx5-2node: %v, %v; want [4242]", pids, err)
	}
	// The guests' real process lists have no irqbalance.
	for _, tree := range []string{"bookworm", "trixie"} {
		pids, err := fixtureFS(t, tree).IRQBalance()
		if err != nil || len(pids) != 0 {
			t.Errorf("%s: %v, %v", tree, pids, err)
		}
	}
	w := irqbalanceWarning([]int{7, 9})
	if !errors.Is(w, ErrIRQBalance) || w.Error() != "irq: irqbalance is running and will rewrite IRQ affinity (pid 7,9): stop it (systemctl stop irqbalance) or ban the IRQs (irqbalance --banirq=N)" {
		t.Errorf("warning %q", w)
	}
}
