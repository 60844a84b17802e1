package topo

import (
	"context"
	"testing"
)

// A nil *Pair (a failed New's result) closes as nothing to undo.
func TestNilPairClose(t *testing.T) {
	var p *Pair
	if err := p.Close(context.Background()); err != nil {
		t.Errorf("(*Pair)(nil).Close() = %v, want nil", err)
	}
}
