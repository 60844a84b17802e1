package main

import "github.com/rocekit/rocekit/perftest"

// streamAbove is the input size from which a perftest text output is
// parsed as a stream: its rows are written as they are read and never
// kept, so memory stays flat whatever the size (a 200 MB file took 3 GB
// read whole, so even 64 MiB read whole would pass 64 MiB of heap).
const streamAbove = 4 << 20

// streamable reports whether a prefix of the input is a perftest text
// output, the one form whose size grows without bound (-a, rows every
// -D seconds with --run_infinitely).
func streamable(prefix []byte) bool {
	switch perftest.Detect(prefix) {
	case perftest.FormTextBW, perftest.FormTextLat, perftest.FormTextLatDuration:
		return true
	}
	return false
}
