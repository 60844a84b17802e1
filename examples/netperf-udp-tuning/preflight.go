package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/netperf"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// preflight reads both ends before anything changes, prints the findings
// and writes preflight.md and preflight.json; they also join round A's.
func (t *tuner) preflight(ctx context.Context, out io.Writer) error {
	facts, fs, err := t.sides.Preflight(ctx, runbook.NetperfPorts, report.PreflightAsk{SocketBufferBytes: t.opts.RemoteSocketBuffer})
	if err != nil {
		return err
	}
	t.hosts, t.pre = facts, fs
	var md strings.Builder
	fmt.Fprintf(&md, "# Preflight\n\n")
	for _, h := range facts {
		fmt.Fprintf(&md, "- %s: %s, kernel %s, %s %s, rmem_max %s, wmem_max %s, firewalld %s\n", h.Role, orNone(h.Host), orNone(h.Kernel),
			h.NIC.Netdev, orNone(h.Model), orNone(h.Sysctls["net.core.rmem_max"]), orNone(h.Sysctls["net.core.wmem_max"]), orNone(h.Firewalld))
	}
	fmt.Fprintln(&md)
	if err := report.WriteFindingsMarkdown(&md, fs); err != nil {
		return err
	}
	io.WriteString(out, md.String())
	if _, err := cli.WriteFile(t.c.Out, "preflight.md", func(w io.Writer) error {
		_, err := io.WriteString(w, md.String())
		return err
	}); err != nil {
		return err
	}
	f, err := report.JSONFile("preflight.json", struct {
		Hosts    []report.HostFacts `json:"hosts"`
		Findings []report.Finding   `json:"findings"`
	}{facts, fs})
	if err != nil {
		return err
	}
	_, err = cli.WriteFile(t.c.Out, "preflight.json", func(w io.Writer) error {
		_, err := w.Write(f.Data)
		return err
	})
	return err
}

// raiseLimits sets net.core.rmem_max and wmem_max to the socket buffers
// the round asks for, where they are lower, on both ends (once when both
// ends share a kernel: the limits are the host's, not a namespace's).
func (t *tuner) raiseLimits(ctx context.Context, s roundSpec, res *roundResult) error {
	want := s.options(t.opts).RemoteSocketBuffer
	if !s.Limits || want <= t.limit {
		return nil
	}
	ends := []runbook.Side{t.sides.Near}
	if t.sides.Mode == runbook.TwoHosts {
		ends = append(ends, t.sides.Far)
	}
	for i, side := range ends {
		cur := map[string]string{}
		if i < len(t.hosts) {
			cur = t.hosts[i].Sysctls
		}
		for _, key := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
			if v, err := strconv.Atoi(cur[key]); err == nil && v >= want {
				continue
			}
			if err := side.SetSysctl(ctx, key, strconv.Itoa(want)); err != nil {
				return fmt.Errorf("%s on %s: %w", key, side.Name(), err)
			}
			res.Changes = append(res.Changes, fmt.Sprintf("%s %d on %s (was %s)", key, want, side.Name(), orNone(cur[key])))
			if i < len(t.hosts) {
				t.hosts[i].Sysctls[key] = strconv.Itoa(want)
			}
		}
	}
	t.limit = want
	return nil
}

// options are netperf's options for the round: the verification round's
// message size and socket buffers, else the flags'.
func (s roundSpec) options(o netperf.Options) netperf.Options {
	if s.Verify {
		o.MessageSize, o.LocalSocketBuffer, o.RemoteSocketBuffer = verifyMsgSize, verifySockBuf, verifySockBuf
	}
	return o
}

// hostsKernel is the kernel of both ends, once when they agree.
func hostsKernel(hosts []report.HostFacts) string {
	var ks []string
	for _, h := range hosts {
		if h.Kernel != "" && (len(ks) == 0 || ks[0] != h.Kernel) {
			ks = append(ks, h.Role+" "+h.Kernel)
		}
	}
	if len(ks) == 1 {
		return hosts[0].Kernel
	}
	return strings.Join(ks, ", ")
}
