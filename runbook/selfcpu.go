package runbook

import (
	"sync/atomic"
	"time"
)

// agentCPU sums the CPU time the rocekit-peer agents reported in their
// replies to this process (peerReply.SelfCPUNs), in nanoseconds.
var agentCPU atomic.Int64

// PeerAgentCPU is the CPU time (user and system) every rocekit-peer
// agent that answered this process reported for itself, summed: what the
// measurer cost the far hosts. Agents older than this field report none.
// With several peers in one process the sum is theirs together.
func PeerAgentCPU() time.Duration { return time.Duration(agentCPU.Load()) }

// SelfCPU is this process's own CPU time so far (getrusage RUSAGE_SELF:
// user and system, every goroutine; children not included), 0 where the
// system does not tell.
func SelfCPU() time.Duration { return selfCPU() }
