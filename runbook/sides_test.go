package runbook

import (
	"context"
	"errors"
	"testing"

	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
)

// Misused Sides return ErrInvalidSides instead of panicking; a Loopback
// without Far uses Near as Far, as the type's doc says.
func TestSidesMisuse(t *testing.T) {
	ctx := context.Background()
	var zero Sides
	if err := zero.Restore(); err != nil {
		t.Errorf("Sides{}.Restore() = %v, want nil (nothing to undo)", err)
	}
	if err := (*Sides)(nil).Restore(); err != nil {
		t.Errorf("(*Sides)(nil).Restore() = %v, want nil", err)
	}
	if err := zero.PrepareRXE(ctx, "rxe0", 0, nil); !errors.Is(err, ErrInvalidSides) {
		t.Errorf("Sides{}.PrepareRXE: %v, want ErrInvalidSides", err)
	}
	if err := zero.SetMTU(ctx, 1500); !errors.Is(err, ErrInvalidSides) {
		t.Errorf("Sides{}.SetMTU: %v, want ErrInvalidSides", err)
	}
	if _, _, err := zero.Preflight(ctx, nil, report.PreflightAsk{}); !errors.Is(err, ErrInvalidSides) {
		t.Errorf("Sides{}.Preflight: %v, want ErrInvalidSides", err)
	}
	if _, err := RepeatPair(ctx, &zero, RXE{}, perftest.Options{}, 1, nil, "x"); !errors.Is(err, ErrInvalidSides) {
		t.Errorf("RepeatPair(Sides{}): %v, want ErrInvalidSides", err)
	}
	two := &Sides{Mode: TwoHosts, Near: &Local{}}
	if err := two.SetMTU(ctx, 1500); !errors.Is(err, ErrInvalidSides) {
		t.Errorf("TwoHosts without Far: SetMTU: %v, want ErrInvalidSides", err)
	}

	// Loopback, Far nil: Far is Near.
	near := &Local{}
	lo := &Sides{Mode: Loopback, Near: near}
	if err := lo.Restore(); err != nil {
		t.Errorf("Loopback without Far: Restore: %v", err)
	}
	// SetMTU on a Local without a journal fails there, not with a panic
	// and not as ErrInvalidSides.
	if err := lo.SetMTU(ctx, 1500); err == nil || errors.Is(err, ErrInvalidSides) {
		t.Errorf("Loopback without Far: SetMTU: %v, want the near side's own error", err)
	}
}
