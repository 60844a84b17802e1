//go:build lab

package runbook

import (
	"testing"

	"github.com/rocekit/rocekit/internal/labtest"
)

// TestLabPreflightFirewall: the preflight finds a real nft rule that
// drops netserver's port, on the guests' kernels (6.1, 6.12) and nft.
func TestLabPreflightFirewall(t *testing.T) {
	labtest.Guest(t)
	testPreflightFirewall(t)
}
