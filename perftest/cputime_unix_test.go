//go:build unix

package perftest

import "syscall"

// cpuTime returns the CPU time (user and system) the process has used, in
// nanoseconds. Benchmarks report it beside the wall time: on a machine
// shared with other work, wall time measures the load as much as the
// code.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
