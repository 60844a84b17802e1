package labtest

import (
	"context"
	"testing"
	"time"
)

// Context returns a context that ends after d or when the test ends,
// whichever is first: a hung tool fails its own test, not the whole binary
// at go test's -timeout.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
