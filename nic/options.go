package nic

// Options choose where a Handle acts.
type Options struct {
	// Netns is a named network namespace (/run/netns/NAME, as made by
	// `ip netns add`); "" is the caller's.
	Netns string
	// Root is where /sys and /proc are read; the zero Root is the live
	// system.
	Root Root
}
