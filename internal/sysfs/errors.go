package sysfs

import (
	"errors"
	"fmt"
)

var (
	// ErrParse is wrapped by every parse failure: a kernel file with
	// content this package cannot read.
	ErrParse = errors.New("sysfs: cannot parse")

	// ErrNoDevice means a netdev has no device behind it (lo, veth,
	// bridges): it is virtual.
	ErrNoDevice = errors.New("sysfs: netdev has no device")

	// ErrTooLarge is wrapped by reads of a file longer than MaxFileBytes.
	ErrTooLarge = errors.New("sysfs: file too large")

	// ErrReadOnly is wrapped by writes to a Root on an fs.FS
	// (sysroot.FromFS).
	ErrReadOnly = errors.New("sysfs: root is a read-only file system")
)

// AlsoMatch returns err made to match sentinel too when it is a parse
// error of this package, so that a package's own ErrParse still matches
// the topology errors it passes on.
func AlsoMatch(err, sentinel error) error {
	if errors.Is(err, ErrParse) && !errors.Is(err, sentinel) {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	return err
}
