package host

import (
	"errors"
	"strings"
	"testing"
)

func TestValidNetnsName(t *testing.T) {
	for _, ok := range []string{"a", "rocekit-peer", "ns_1.b", "x-", strings.Repeat("n", MaxNetnsName)} {
		if err := ValidNetnsName(ok); err != nil {
			t.Errorf("ValidNetnsName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "../../proc/self/ns/net", "a/b", "/run/netns/a", ".", "..", "a..b", "-n", "a b", "a\tb", "a\x00", "a\n", "\xff", strings.Repeat("n", MaxNetnsName+1)} {
		err := ValidNetnsName(bad)
		var ne *NetnsNameError
		if !errors.Is(err, ErrInvalidNetnsName) || !errors.As(err, &ne) || ne.Name != bad || ne.Reason == "" {
			t.Errorf("ValidNetnsName(%q) = %v, want a *NetnsNameError", bad, err)
		}
	}
}
