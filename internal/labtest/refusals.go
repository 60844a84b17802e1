package labtest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Refusal is one bad flag for CheckRefusals: how to set it on a good
// configuration, and what the refusal must say.
type Refusal[C any] struct {
	Set  func(*C)
	Want string
}

// CheckRefusals checks the examples' contract for bad flags: each one is
// refused by validate (a pure function) with an error matching sentinel
// that says Want, and by run before it touches anything: none of the
// unwritten paths (the -out folder, the journal, the store) exists
// afterwards. good makes a fresh configuration that validates.
func CheckRefusals[C any](t *testing.T, good func() C, refusals []Refusal[C], validate, run func(C) error, sentinel error, unwritten ...string) {
	t.Helper()
	if err := validate(good()); err != nil {
		t.Fatalf("good flags: %v", err)
	}
	for _, r := range refusals {
		c := good()
		r.Set(&c)
		if err := validate(c); !errors.Is(err, sentinel) || !strings.Contains(err.Error(), r.Want) {
			t.Errorf("validate = %v, want %q", err, r.Want)
		}
		if err := run(c); !errors.Is(err, sentinel) || !strings.Contains(err.Error(), r.Want) {
			t.Errorf("run = %v, want the refusal %q first", err, r.Want)
		}
	}
	for _, p := range unwritten {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s written by a refused run", p)
		}
	}
}
