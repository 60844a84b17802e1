package tune

import (
	"errors"
	"testing"

	"github.com/rocekit/rocekit/host"
)

// tune's namespace check is host's: a name one accepts the other does.
func TestValidateNetnsIsHosts(t *testing.T) {
	if MaxNetnsName != host.MaxNetnsName {
		t.Errorf("MaxNetnsName %d, host.MaxNetnsName %d", MaxNetnsName, host.MaxNetnsName)
	}
	for _, name := range []string{"a", "ns-1", "../../proc/self/ns/net", "a/b", "..", "a..b", "-n", "a b", "\x00"} {
		terr, herr := ValidateNetns(name), host.ValidNetnsName(name)
		if (terr == nil) != (herr == nil) {
			t.Errorf("%q: tune %v, host %v", name, terr, herr)
		}
		if herr != nil && !errors.Is(terr, host.ErrInvalidNetnsName) {
			t.Errorf("%q: tune's error %v does not match host.ErrInvalidNetnsName", name, terr)
		}
		if herr != nil && !errors.Is(terr, ErrInvalidInput) {
			t.Errorf("%q: tune's error %v does not match ErrInvalidInput", name, terr)
		}
	}
}
