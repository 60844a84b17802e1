package irq

import (
	"errors"
	"fmt"
	"os"

	"github.com/rocekit/rocekit/sysroot"
	"golang.org/x/sys/unix"
)

// DefaultRoot returns a Root on the running kernel's /proc and /sys.
func DefaultRoot() (Root, error) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		return Root{}, fmt.Errorf("irq: /proc not mounted: %w", err)
	}
	return Root(sysroot.ProcSys("/proc", "/sys")), nil
}

// writeKernelFile writes value to an existing kernel file in one write(2),
// as echo does; kernel files take a value per write. O_TRUNC is harmless
// on /proc and /sys and lets fixture files be overwritten.
func writeKernelFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(value + "\n")); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isNotWritableErrno reports the kernel's "this IRQ cannot be moved": EIO
// on older kernels, EPERM since "genirq/proc: Change the return value for
// set affinity permission error".
func isNotWritableErrno(err error) bool {
	return errors.Is(err, unix.EIO) || errors.Is(err, unix.EPERM)
}

func isInvalidErrno(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ERANGE)
}
