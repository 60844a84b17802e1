// Package labtest holds the skips shared by rocekit's root and lab tests, so
// every package says the same thing when a test cannot run here.
//
//	//go:build lab
//	func TestLabRxeLink(t *testing.T) {
//		labtest.Guest(t) // skips outside a lab guest
//		...
//	}
package labtest

import (
	"os"
	"testing"

	"github.com/rocekit/rocekit/internal/lab"
)

// Guest skips the test unless it runs inside a lab guest (lab test sets
// ROCEKIT_LAB=1). Guests run as root with rdma_rxe available, -smp 4 and
// two virtio-net NICs eth0 and eth1 on one QEMU hub.
func Guest(t testing.TB) {
	t.Helper()
	if os.Getenv(lab.EnvInLab) != "1" {
		t.Skip("not inside a lab guest; run: go run ./internal/lab/cmd/lab test")
	}
}

// Suite returns the lab guest's Debian suite ("bookworm", "trixie"), or ""
// outside the lab.
func Suite() string { return os.Getenv(lab.EnvSuite) }

// Root skips the test unless it runs as root (network namespaces, sysfs
// writes).
func Root(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}
