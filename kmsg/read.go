package kmsg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rocekit/rocekit/host"
)

// Method is how Read gets the kernel log.
type Method int

const (
	// MethodAuto reads /dev/kmsg (records with sequence numbers) and falls
	// back to dmesg -r when that is not possible (no dd, or a dd without
	// iflag=nonblock).
	MethodAuto Method = iota
	// MethodKmsg reads /dev/kmsg without blocking, one record per read,
	// until the kernel has no more.
	//
	// Similar to: dd if=/dev/kmsg iflag=nonblock bs=64K status=none
	MethodKmsg
	// MethodDmesg runs dmesg -r (no sequence numbers; Since matches by
	// text and timestamp).
	//
	// Similar to: dmesg -r
	MethodDmesg
)

// KmsgArgv and DmesgArgv are the commands Read runs.
var (
	KmsgArgv  = []string{"dd", "if=/dev/kmsg", "iflag=nonblock", "bs=65536", "status=none"}
	DmesgArgv = []string{"dmesg", "-r"}
)

// Read returns the whole kernel log of the host r runs on, through r (a
// network namespace shares its host's log). It needs root where
// kernel.dmesg_restrict is 1, and says so with ErrPermission.
//
// Similar to: dmesg -r
func Read(ctx context.Context, r host.Runner) (Log, error) {
	return ReadWith(ctx, r, MethodAuto)
}

// ReadWith is Read with a chosen method.
func ReadWith(ctx context.Context, r host.Runner, m Method) (Log, error) {
	if m == MethodDmesg {
		return readDmesg(ctx, r)
	}
	l, err := readKmsg(ctx, r)
	if err == nil || m == MethodKmsg || errors.Is(err, ErrPermission) || ctx.Err() != nil {
		return l, err
	}
	return readDmesg(ctx, r)
}

// readKmsg runs dd on /dev/kmsg; dd ends with EAGAIN ("Resource
// temporarily unavailable") once the kernel has no more records, which is
// the normal end.
func readKmsg(ctx context.Context, r host.Runner) (Log, error) {
	p, err := host.Run(ctx, r, host.Cmd{Argv: KmsgArgv, Env: []string{"LC_ALL=C"}})
	if p == nil {
		return Log{}, fmt.Errorf("kmsg: read /dev/kmsg on %s: %w", r, err)
	}
	stderr := p.Stderr().String()
	if err != nil && !strings.Contains(stderr, "Resource temporarily unavailable") {
		return Log{}, readError(r, "/dev/kmsg", stderr, err)
	}
	return ParseBytes(p.Stdout().Bytes())
}

// readDmesg runs dmesg -r.
func readDmesg(ctx context.Context, r host.Runner) (Log, error) {
	p, err := host.Run(ctx, r, host.Cmd{Argv: DmesgArgv, Env: []string{"LC_ALL=C"}})
	if err != nil {
		stderr := ""
		if p != nil {
			stderr = p.Stderr().String()
		}
		return Log{}, readError(r, "dmesg -r", stderr, err)
	}
	return Parse(bytes.NewReader(p.Stdout().Bytes()))
}

// readError classifies a failed read: a permission error wraps
// ErrPermission and os.ErrPermission.
func readError(r host.Runner, what, stderr string, err error) error {
	if strings.Contains(stderr, "Operation not permitted") || strings.Contains(stderr, "Permission denied") {
		return fmt.Errorf("%w (%w): %s on %s: %s", ErrPermission, os.ErrPermission, what, r, strings.TrimSpace(stderr))
	}
	return fmt.Errorf("kmsg: %s on %s: %w", what, r, err)
}
