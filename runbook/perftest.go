package runbook

import (
	"context"
	"fmt"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
)

// PerftestOptions completes opts for a pair whose server runs on the far
// side and client on the near one: each side's device and the GID index
// PrepareRXE picked on it. In loopback both are the same.
func PerftestOptions(opts perftest.Options, sides *Sides, far, near RXEInfo) perftest.Options {
	opts.Device = far.Device
	if near.Device != far.Device {
		opts.ClientDevice = near.Device
	}
	farRunner := sides.Far.Runner().String()
	opts.GID = perftest.GIDChooserFunc(func(_ context.Context, r host.Runner, device string, _ int) (int, error) {
		switch {
		case r.String() == farRunner && device == far.Device:
			return far.GID.Entry.Index, nil
		case device == near.Device:
			return near.GID.Entry.Index, nil
		}
		return 0, fmt.Errorf("runbook: no GID picked for %s on %s", device, r)
	})
	return opts
}
