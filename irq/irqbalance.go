package irq

import (
	"fmt"
	iofs "io/fs"
	"slices"
	"strconv"
	"strings"
)

// IRQBalance returns the process ids of running irqbalance daemons, found
// by their command name in /proc/PID/comm; none means it is not running.
//
// Similar to: pgrep -x irqbalance
func (fs Root) IRQBalance() ([]int, error) {
	ents, err := iofs.ReadDir(fs.root().FS(), "proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		comm, err := fs.readString(fs.procPath(e.Name(), "comm"))
		if err != nil {
			continue // the process exited
		}
		if comm == "irqbalance" {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// irqbalanceWarning is the warning Apply gives when irqbalance runs.
func irqbalanceWarning(pids []int) error {
	ids := make([]string, len(pids))
	for i, p := range pids {
		ids[i] = strconv.Itoa(p)
	}
	return fmt.Errorf("%w (pid %s): stop it (systemctl stop irqbalance) or ban the IRQs (irqbalance --banirq=N)", ErrIRQBalance, strings.Join(ids, ","))
}
