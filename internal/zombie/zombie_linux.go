package zombie

import (
	"errors"

	"golang.org/x/sys/unix"
)

// WaitExited blocks until the child pid has exited, leaving it unreaped.
// It returns at once when pid is not a child of this process.
func WaitExited(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
