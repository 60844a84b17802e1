package capture

import (
	"bytes"
	"context"
	"os"
	"strings"
	"time"
)

const versionTimeout = 10 * time.Second

// toolVersion returns the version text of a tool for case.json, once per run.
func (r *runner) toolVersion(ctx context.Context, tool string) string {
	if v, ok := r.versions[tool]; ok {
		return v
	}
	pkg, argv := versionSource(tool)
	var v string
	switch {
	case tool == "kernel":
		v = r.kernel
	case pkg == "":
		v = "unknown"
	default:
		pkgVersion, err := r.output(ctx, versionTimeout, "dpkg-query", "-W", "-f", "${Version}", pkg)
		if err != nil {
			pkgVersion = ""
		}
		var text string
		if argv != nil {
			// Version commands may exit non-zero (perftest -V exits 1); the text counts.
			text, _ = r.output(ctx, versionTimeout, argv...)
		}
		v = formatToolVersion(strings.TrimSpace(pkgVersion), text)
	}
	r.versions[tool] = v
	return v
}

// output runs a helper command that is not recorded as a side and returns its stdout and
// stderr together. The error is set when the command did not start or did not exit 0.
func (r *runner) output(ctx context.Context, timeout time.Duration, argv ...string) (string, error) {
	var buf bytes.Buffer
	p, err := startProcess(os.TempDir(), argv, &buf, &buf)
	if err != nil {
		return "", err
	}
	p.waitUntil(ctx, p.start.Add(r.scale(timeout)))
	if !p.side.OK() {
		return buf.String(), &exitError{argv: argv, side: p.side}
	}
	return buf.String(), nil
}

// exitError is the failure of a helper command.
type exitError struct {
	argv []string
	side Side
}

// Error names the command and how it ended.
func (e *exitError) Error() string {
	return commandLine(e.argv) + ": " + sideStatus(e.side)
}
