//go:build !linux

package rxe

import "context"

// LocalCommander returns a Commander that fails with ErrUnsupported: rxe
// loads modules on Linux only.
func LocalCommander() Commander { return localCommander{} }

type localCommander struct{}

// Output returns ErrUnsupported.
func (localCommander) Output(context.Context, string, ...string) ([]byte, error) {
	return nil, ErrUnsupported
}
