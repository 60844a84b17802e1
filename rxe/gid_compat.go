package rxe

import "fmt"

// IncompatibleError says why two ends' GIDs cannot form a connection.
// errors.Is(err, ErrIncompatibleGIDs) holds for it.
type IncompatibleError struct {
	Local, Remote GIDEntry
	Reason        string
}

// Error names both GIDs and the reason.
func (e *IncompatibleError) Error() string {
	return fmt.Sprintf("rxe: incompatible GIDs: local %s/%d index %d (%s, %s), remote %s/%d index %d (%s, %s): %s",
		e.Local.Device, e.Local.Port, e.Local.Index, e.Local.Type, e.Local.GID.Addr(),
		e.Remote.Device, e.Remote.Port, e.Remote.Index, e.Remote.Type, e.Remote.GID.Addr(), e.Reason)
}

// Is matches ErrIncompatibleGIDs.
func (e *IncompatibleError) Is(target error) bool { return target == ErrIncompatibleGIDs }

// CheckCompatible reports whether the GIDs two ends chose (on each host, for
// perftest's -x) can reach each other: both RoCE v2 or both RoCE v1, and both
// IPv4-mapped or both IPv6. A mismatch is what makes perftest print "Found
// Incompatibility issue with GID types" or hang in the QP transition to RTR.
// It cannot check routing: a link-local GID only reaches its own L2 segment.
func CheckCompatible(local, remote GIDEntry) error {
	fail := func(reason string) error {
		return &IncompatibleError{Local: local, Remote: remote, Reason: reason}
	}
	switch {
	case local.GID.IsZero() || remote.GID.IsZero():
		return fail("an empty GID")
	case local.Type != remote.Type:
		return fail(fmt.Sprintf("RoCE versions differ (%s vs %s)", local.Type, remote.Type))
	case local.GID.IsIPv4Mapped() != remote.GID.IsIPv4Mapped():
		return fail("one is IPv4-mapped, the other IPv6")
	}
	return nil
}
