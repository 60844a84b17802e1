//go:build !linux

package irq

// DefaultRoot returns ErrUnsupportedOS: only Linux has the kernel files this
// package reads. A Root on fixture trees works everywhere.
func DefaultRoot() (Root, error) { return Root{}, ErrUnsupportedOS }

func writeKernelFile(path, value string) error { return ErrUnsupportedOS }

func isNotWritableErrno(err error) bool { return false }

func isInvalidErrno(err error) bool { return false }
