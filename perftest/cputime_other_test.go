//go:build !unix

package perftest

// cpuTime is 0 where getrusage is missing; benchmarks then report no CPU
// time.
func cpuTime() int64 { return 0 }
