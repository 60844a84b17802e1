//go:build !linux

package tune

import "errors"

var errNotLinux = errors.New("tune: needs Linux")

func inNetns(name string, f func() error) error {
	if name != "" {
		return errNotLinux
	}
	return f()
}

func signalIRQBalance(int, bool) error { return errNotLinux }
