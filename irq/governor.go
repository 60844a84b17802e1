package irq

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// CPUGovernor is the cpufreq governor of one CPU.
type CPUGovernor struct {
	CPU      int
	Governor string // "performance", "powersave", "schedutil", ...
}

func (fs Root) cpufreqPath(cpu int, file string) string {
	return fs.sysPath("devices", "system", "cpu", "cpu"+strconv.Itoa(cpu), "cpufreq", file)
}

// Governor returns CPU cpu's scaling governor. A CPU without cpufreq gives
// a *GovernorError matching ErrNoCpufreq.
//
// Similar to: cat /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor
func (fs Root) Governor(cpu int) (string, error) {
	g, err := fs.readString(fs.cpufreqPath(cpu, "scaling_governor"))
	if err != nil {
		return "", fs.governorError(cpu, "", err)
	}
	return g, nil
}

// governorError turns a missing cpufreq folder into ErrNoCpufreq.
func (fs Root) governorError(cpu int, gov string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		if !fs.root().Exists(fs.cpufreqPath(cpu, "")) {
			err = fmt.Errorf("%w: %v", ErrNoCpufreq, err)
		}
	}
	return &GovernorError{CPU: cpu, Governor: gov, Err: err}
}

// Governors returns the scaling governor of every online CPU. When no CPU
// has cpufreq (virtual machines), the error matches ErrNoCpufreq; when only
// some lack it, their errors are joined and the others returned.
//
// Similar to: cpupower -c all frequency-info -p
func (fs Root) Governors() ([]CPUGovernor, error) {
	cpus, err := fs.OnlineCPUs()
	if err != nil {
		return nil, err
	}
	var out []CPUGovernor
	var errs []error
	for _, c := range cpus {
		g, err := fs.Governor(c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, CPUGovernor{CPU: c, Governor: g})
	}
	return out, errors.Join(errs...)
}

// AvailableGovernors returns the governors CPU cpu's driver offers.
//
// Similar to: cat /sys/devices/system/cpu/cpuN/cpufreq/scaling_available_governors
func (fs Root) AvailableGovernors(cpu int) ([]string, error) {
	s, err := fs.readString(fs.cpufreqPath(cpu, "scaling_available_governors"))
	if err != nil {
		return nil, fs.governorError(cpu, "", err)
	}
	return strings.Fields(s), nil
}

// SetGovernor sets the scaling governor of each CPU in cpus and returns the
// governors it replaced, in CPU order, to be given back to SetGovernors.
// A governor the driver does not offer is refused before anything is
// written. On an error it stops and returns what it replaced so far.
//
// Similar to: cpupower -c LIST frequency-set -g GOVERNOR
func (fs Root) SetGovernor(cpus CPUList, governor string) (replaced []CPUGovernor, err error) {
	set := make([]CPUGovernor, 0, len(cpus))
	for _, c := range cpus {
		set = append(set, CPUGovernor{CPU: c, Governor: governor})
	}
	return fs.SetGovernors(set)
}

// SetGovernors sets each listed CPU's governor, as SetGovernor does, and
// returns the governors it replaced; it restores what SetGovernor
// returned.
//
// Similar to: echo GOVERNOR > /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor
func (fs Root) SetGovernors(set []CPUGovernor) (replaced []CPUGovernor, err error) {
	for _, s := range set {
		old, err := fs.Governor(s.CPU)
		if err != nil {
			return replaced, err
		}
		avail, err := fs.AvailableGovernors(s.CPU)
		if err == nil && !slices.Contains(avail, s.Governor) {
			return replaced, &GovernorError{CPU: s.CPU, Governor: s.Governor,
				Err: fmt.Errorf("not offered by the driver (available: %s)", strings.Join(avail, " "))}
		}
		if err := fs.writeKernelFile(fs.cpufreqPath(s.CPU, "scaling_governor"), s.Governor); err != nil {
			return replaced, &GovernorError{CPU: s.CPU, Governor: s.Governor, Err: err}
		}
		replaced = append(replaced, CPUGovernor{CPU: s.CPU, Governor: old})
	}
	return replaced, nil
}
