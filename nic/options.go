package nic

import "github.com/rocekit/rocekit/sysroot"

// Options choose where a Handle acts. rxe.Options and runbook.Local take
// the same two fields.
type Options struct {
	// Netns is a named network namespace (/run/netns/NAME, as made by
	// `ip netns add`); "" is the caller's. Netlink and ethtool act there.
	Netns string
	// Root is where /sys and /proc are read; the zero Root is the live
	// system.
	Root sysroot.Root
}

// root returns the Handle's root as this package reads it.
func (o Options) root() Root { return Root(o.Root) }
