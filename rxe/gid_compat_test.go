package rxe

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckCompatible(t *testing.T) {
	a4v2 := GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: gidOf("198.18.20.1"), Type: GIDTypeRoCEv2}
	b4v2 := GIDEntry{Device: "rxe0", Port: 1, Index: 3, GID: gidOf("198.18.20.2"), Type: GIDTypeRoCEv2}
	b4v1 := b4v2
	b4v1.Type = GIDTypeRoCEv1
	b6v2 := GIDEntry{Device: "rxe0", Port: 1, Index: 1, GID: gidOf("2001:2::2"), Type: GIDTypeRoCEv2}
	tests := []struct {
		a, b GIDEntry
		why  string // "" when compatible
	}{
		{a4v2, b4v2, ""},
		{a4v2, b4v1, "RoCE versions differ"},
		{a4v2, b6v2, "IPv4-mapped"},
		{a4v2, GIDEntry{Type: GIDTypeRoCEv2}, "empty GID"},
	}
	for _, tt := range tests {
		for _, pair := range [][2]GIDEntry{{tt.a, tt.b}, {tt.b, tt.a}} {
			err := CheckCompatible(pair[0], pair[1])
			if tt.why == "" {
				if err != nil {
					t.Errorf("CheckCompatible: %v", err)
				}
				continue
			}
			var ie *IncompatibleError
			if !errors.Is(err, ErrIncompatibleGIDs) || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("CheckCompatible(%v, %v) = %v, want %q", pair[0].GID.Addr(), pair[1].GID.Addr(), err, tt.why)
			}
		}
	}
}
