//go:build !linux

package irq

// DefaultFS returns ErrUnsupported: only Linux has the kernel files this
// package reads. NewFS on fixture trees works everywhere.
func DefaultFS() (FS, error) { return FS{}, ErrUnsupported }

func writeKernelFile(path, value string) error { return ErrUnsupported }

func isNotWritableErrno(err error) bool { return false }

func isInvalidErrno(err error) bool { return false }
