//go:build !linux

package irq

// DefaultFS returns ErrUnsupportedOS: only Linux has the kernel files this
// package reads. NewFS on fixture trees works everywhere.
func DefaultFS() (FS, error) { return FS{}, ErrUnsupportedOS }

func writeKernelFile(path, value string) error { return ErrUnsupportedOS }

func isNotWritableErrno(err error) bool { return false }

func isInvalidErrno(err error) bool { return false }
