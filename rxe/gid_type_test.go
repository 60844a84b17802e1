package rxe

import (
	"errors"
	"testing"

	"github.com/rocekit/rocekit/internal/sysfs"
)

func TestParseGIDType(t *testing.T) {
	for in, want := range map[string]GIDType{"RoCE v2\n": GIDTypeRoCEv2, "IB/RoCE v1\n": GIDTypeRoCEv1, "RoCE v2": GIDTypeRoCEv2} {
		got, err := ParseGIDType(in)
		if err != nil || got != want {
			t.Errorf("ParseGIDType(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got.String() != sysfs.TrimNewline(in) {
			t.Errorf("String() = %q", got.String())
		}
	}
	for _, in := range []string{"", "RoCE v3", "roce v2", "v2"} {
		if _, err := ParseGIDType(in); !errors.Is(err, ErrParse) {
			t.Errorf("ParseGIDType(%q) error = %v", in, err)
		}
	}
	if GIDTypeRoCEv2.Version() != "v2" || GIDTypeRoCEv1.Version() != "v1" || GIDTypeUnknown.Version() != "" {
		t.Error("Version() mismatch")
	}
}

func FuzzParseGIDType(f *testing.F) {
	f.Add("RoCE v2\n")
	f.Add("IB/RoCE v1")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGIDType(s)
		if err == nil && g == GIDTypeUnknown {
			t.Fatalf("%q parsed to unknown without error", s)
		}
	})
}
