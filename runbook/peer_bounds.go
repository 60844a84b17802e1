package runbook

import (
	"errors"
	"fmt"
	"time"
)

// Bounds of an agent call: a hung agent or a runaway reply must not hold
// or swell the run.
const (
	// DefaultPeerCallTimeout is the deadline of a quick agent call (read
	// a netdev, counters, host facts; set an MTU, a sysctl).
	DefaultPeerCallTimeout = 30 * time.Second
	// DefaultPeerSlowCallTimeout is the deadline of prepare-rxe (loads
	// rdma_rxe, waits for the port and its GID) and restore.
	DefaultPeerSlowCallTimeout = 3 * time.Minute
	// DefaultMaxPeerReplyBytes bounds an agent's reply (the kernel log is
	// the largest: a ring of up to a few MiB, as JSON).
	DefaultMaxPeerReplyBytes = 64 << 20
)

// ErrPeerTimeout is matched by a *PeerTimeoutError.
var ErrPeerTimeout = errors.New("runbook: peer call timed out")

// PeerTimeoutError is an agent call that did not answer within its
// deadline; the agent was killed.
type PeerTimeoutError struct {
	Op      string
	Timeout time.Duration
}

// Error names the call and its deadline.
func (e *PeerTimeoutError) Error() string {
	return fmt.Sprintf("runbook: peer %s: no answer within %s (Peer.CallTimeout): the agent hangs or the host is overloaded", e.Op, e.Timeout)
}

// Is matches ErrPeerTimeout.
func (e *PeerTimeoutError) Is(target error) bool { return target == ErrPeerTimeout }

// ErrPeerReplyTooLarge is matched by a *PeerReplyTooLargeError.
var ErrPeerReplyTooLarge = errors.New("runbook: peer reply too large")

// PeerReplyTooLargeError is an agent reply (standard output or error)
// longer than Max bytes; the agent was killed and the reply dropped.
type PeerReplyTooLargeError struct {
	Op  string
	Max int
}

// Error names the call and the bound.
func (e *PeerReplyTooLargeError) Error() string {
	return fmt.Sprintf("runbook: peer %s: reply longer than %d bytes (Peer.MaxReplyBytes)", e.Op, e.Max)
}

// Is matches ErrPeerReplyTooLarge.
func (e *PeerReplyTooLargeError) Is(target error) bool { return target == ErrPeerReplyTooLarge }

// callTimeout is the deadline of one call of op.
func (p *Peer) callTimeout(op string) time.Duration {
	if p.CallTimeout > 0 {
		return p.CallTimeout
	}
	if o := peerOpNamed(op); o != nil && o.slow {
		return DefaultPeerSlowCallTimeout
	}
	return DefaultPeerCallTimeout
}

// maxReply is the bound of one reply.
func (p *Peer) maxReply() int {
	if p.MaxReplyBytes > 0 {
		return p.MaxReplyBytes
	}
	return DefaultMaxPeerReplyBytes
}
