package sentinel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

func TestKinds(t *testing.T) {
	a, b := NotExist("x: gone"), NotExist("x: gone")
	wrapped := fmt.Errorf("read foo: %w", a)
	switch {
	case a.Error() != "x: gone":
		t.Errorf("message %q", a)
	case !errors.Is(wrapped, a) || !errors.Is(wrapped, fs.ErrNotExist) || !errors.Is(wrapped, os.ErrNotExist):
		t.Errorf("%v does not match its sentinel and fs.ErrNotExist", wrapped)
	case errors.Is(wrapped, b) || errors.Is(wrapped, fs.ErrPermission):
		t.Errorf("%v matches another sentinel or kind", wrapped)
	}
	p := Permission("x: denied")
	if !errors.Is(p, os.ErrPermission) || errors.Is(p, fs.ErrNotExist) {
		t.Errorf("%v: wrong kind", p)
	}
}
