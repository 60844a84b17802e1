//go:build !linux

package agent

import (
	"fmt"
	"os"
	"runtime"
)

// Main exits: the agent runs only as the init of a Linux guest.
func Main() {
	fmt.Fprintf(os.Stderr, "rocekit-agent: unsupported on %s\n", runtime.GOOS)
	os.Exit(1)
}
