package capture

import (
	"errors"
	"io"
	"regexp"
)

// ErrUnsupportedOS is returned by Run on systems other than Linux.
var ErrUnsupportedOS = errors.New("capture: only supported on Linux")

// Options configure Run.
type Options struct {
	// OutDir receives one directory per case: OutDir/<group>/<case>/.
	OutDir string
	// Suite names the lab image (bookworm, trixie); it is copied into every record.
	Suite string
	// Only selects cases by id; nil selects all. Setup phases run only when a selected
	// case needs them.
	Only *regexp.Regexp
	// NICA and NICB are the netperf NICs, moved into nsA and nsB; "" means eth0 and eth1.
	NICA, NICB string
	// VethForNetperf creates NICA and NICB as a veth pair instead of using existing NICs.
	// Outside the lab (ROCEKIT_LAB unset) capture refuses to move existing NICs.
	VethForNetperf bool
	// TimeoutScale multiplies every timeout and readiness deadline; 0 means 1.
	TimeoutScale float64
	// Progress receives one line per case while the run goes on; nil discards it.
	Progress io.Writer
}
