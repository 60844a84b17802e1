//go:build !linux

package runbook

import (
	"context"
	"errors"
	"fmt"
)

// IPv4 returns the first IPv4 address of a netdev; it needs Linux's
// netlink.
//
// Similar to: ip [-n NETNS] -4 addr show dev NETDEV
func (l *Local) IPv4(_ context.Context, netdev string) (string, error) {
	return "", fmt.Errorf("runbook: address of %s on %s: %w", netdev, l.Name(), errors.ErrUnsupported)
}
