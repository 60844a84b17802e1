package host

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Cmd is a command to start on a Runner. The zero value of every field but
// Argv is a sensible default.
type Cmd struct {
	// Argv is the program and its arguments. The program is looked up in
	// PATH on the target (for Local and Netns, the caller's PATH). It is
	// never parsed by a shell: over SSH every argument is quoted.
	Argv []string

	// Env holds KEY=VALUE entries added to the target's environment (later
	// entries win). Keys must be shell identifiers.
	Env []string

	// Dir is the working directory; empty means the runner's default (the
	// caller's directory for Local and Netns, the login directory over SSH).
	Dir string

	// LineBuffered runs the program under "stdbuf -oL -eL", so that a C
	// program's stdio flushes each line into the pipe instead of holding up
	// to 4 KiB until it exits (perftest and netperf print their results
	// that way). stdbuf must exist on the target; it has no effect on
	// statically linked programs.
	LineBuffered bool

	// CPUs pins the program, and the children it starts, to these CPUs.
	// Local and Netns fork it from a thread bound to them, so it never
	// runs anywhere else; over SSH it runs under "taskset -c", which must
	// exist there. Empty leaves the affinity as inherited.
	//
	// Similar to: taskset -c 2,3 PROG ARGS
	CPUs []int

	// OnStdout and OnStderr, when set, are called with each line of the
	// stream (without its newline) as it arrives, from the goroutine that
	// reads the stream. A slow callback holds the process up once its pipe
	// is full.
	OnStdout, OnStderr func(line string)

	// Stdin, when set, is what the program reads on its standard input,
	// as it comes (a long-lived program can read requests from it); the
	// program sees the end of its input when Stdin returns io.EOF. Nil is
	// an empty input. host.Fake leaves it to its Respond function.
	Stdin io.Reader

	// MaxOutputBytes bounds the memory kept of each stream: when set, the
	// first half of it keeps the first lines and the rest the most recent
	// ones; lines in between are dropped and counted (Output.Dropped).
	// Callbacks still see every line. Zero keeps everything.
	MaxOutputBytes int

	// MaxLineBytes is the longest line seen whole (by the callbacks and
	// Output.Lines): a line that grows longer without a newline is passed
	// on in pieces of this size, so that a stream without newlines cannot
	// swell memory. Zero means 64 KiB, or half of MaxOutputBytes when that
	// is smaller. A caller that reads one message a line (a JSON reply)
	// sets it above its longest message.
	MaxLineBytes int
}

// MaxCPU bounds the CPU numbers of Cmd.CPUs (the kernel's default
// CPU_SETSIZE).
const MaxCPU = 1024

// cpuList formats CPUs for taskset -c: "2,3".
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// validate checks what every runner needs: an argv without NUL bytes (an
// exec argument cannot carry one) and KEY=VALUE environment entries with
// shell-identifier keys.
func (c *Cmd) validate() error {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return fmt.Errorf("%w: empty argv", ErrInvalidCmd)
	}
	if strings.HasPrefix(c.Argv[0], "-") {
		return fmt.Errorf("%w: program name %q starts with '-'", ErrInvalidCmd, c.Argv[0])
	}
	for i, a := range c.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("%w: argument %d contains a NUL byte", ErrInvalidCmd, i)
		}
	}
	for _, kv := range c.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !isIdentifier(k) {
			return fmt.Errorf("%w: environment entry %q is not KEY=VALUE with KEY a shell identifier", ErrInvalidCmd, kv)
		}
		if strings.IndexByte(kv, 0) >= 0 {
			return fmt.Errorf("%w: environment entry for %s contains a NUL byte", ErrInvalidCmd, k)
		}
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 || cpu >= MaxCPU {
			return fmt.Errorf("%w: CPU %d out of range 0-%d", ErrInvalidCmd, cpu, MaxCPU-1)
		}
	}
	if strings.IndexByte(c.Dir, 0) >= 0 {
		return fmt.Errorf("%w: directory contains a NUL byte", ErrInvalidCmd)
	}
	return nil
}

// isIdentifier reports whether s is a POSIX shell name: [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
