// Package overhead holds no code: its benchmarks measure what rocekit
// itself costs per measured pair (issue 26), side by side in one run —
// a perftest pair on host.Fake (the library alone), a netperf -l 1 pair
// between two namespaces of this host, the same with the server over SSH
// to an sshd on loopback, and the shell runbook's way (ssh HOST server &;
// sleep 1; client). Each reports overhead-ms/op: wall time minus the
// tool's own measuring time (netperf's ELAPSED_TIME). They need root,
// netperf and sshd:
//
//	go test ./internal/overhead -run '^$' -bench . -count 6
package overhead
