package cli

import (
	"context"
	"errors"
	"io"

	"github.com/rocekit/rocekit/runbook"
)

// OpenRun is the frame of an example run that writes out and store:
// validate refuses bad flags before anything is touched, OpenChecked
// opens both ends, body runs on them, and the sides are restored
// whatever body returned (Restore's error joined to body's). One frame,
// so that no example can restore less or check later than the others.
func (f *Flags) OpenRun(ctx context.Context, validate func() error, out, store string, log io.Writer, body func(*runbook.Sides) error) (err error) {
	if err := validate(); err != nil {
		return err
	}
	sides, err := f.OpenChecked(ctx, out, store, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sides.Restore()) }()
	return body(sides)
}

// OpenRun is Flags.OpenRun with the step flags' -out and -store.
func (f *StepFlags) OpenRun(ctx context.Context, validate func() error, log io.Writer, body func(*runbook.Sides) error) error {
	return f.Flags.OpenRun(ctx, validate, f.Out, f.Store, log, body)
}
