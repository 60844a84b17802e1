package workflow

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/perftest"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// Fingerprint records the environment of a perftest step on both ends:
// each end's kernel, netdev (driver, its version, firmware, MTU), RXE
// link and GID, the perftest and rdma-core versions, the governors, and
// the command lines as the first pair ran them (pinning as taskset, a
// namespace as ip netns exec, a peer as its SSH target, with the netdev
// MTU for the archive's rerun.sh). It also returns each end's versions
// for report.CompareEnds (far first; one in loopback). What cannot be read
// is left out, never an error: a host without dpkg is usual.
func Fingerprint(ctx context.Context, sides *runbook.Sides, ps runbook.Pairs, opts perftest.Options) (*report.Fingerprint, []report.EndVersions) {
	fp := &report.Fingerprint{}
	var ends []report.EndVersions
	var kernels, governors []string
	for _, s := range endSides(sides) {
		info, netdev := sides.NearRXE, sides.NearNetdev
		if s == sides.Far {
			info, netdev = sides.FarRXE, sides.FarNetdev
		}
		ev := report.EndVersions{Host: s.Name()}
		if h, err := s.Host(ctx); err == nil {
			ev.Kernel = h.Kernel
			kernels = append(kernels, s.Name()+" "+h.Kernel)
			if g := report.GovernorSummary(h.Governors); g != "" {
				governors = append(governors, s.Name()+" "+g)
			}
		}
		if nd, err := s.Netdev(ctx, netdev); err == nil {
			n := report.NICFromSnapshot(s.Name(), nd.Snapshot)
			n.RDMADevice = info.Device
			fp.NICs = append(fp.NICs, n)
			ev.Driver, ev.DriverVersion, ev.Firmware = n.Driver, n.DriverVersion, n.Firmware
		}
		fp.RXE = append(fp.RXE, report.RXEFingerprint{Host: s.Name(), Link: info.Device, Netdev: info.Netdev,
			GIDIndex: info.GID.Entry.Index, GID: info.GID.Entry.GID.String(), GIDType: info.GID.Entry.Type.String()})
		ev.Tools = toolVersions(ctx, s.Runner(), opts.Test.Program())
		for _, t := range ev.Tools {
			fp.Tools = append(fp.Tools, report.Param{Key: s.Name() + "/" + t.Key, Value: t.Value})
		}
		ends = append(ends, ev)
	}
	fp.Kernel = oneOrEach(kernels)
	fp.Governor = oneOrEach(governors)
	if len(ps.Pairs) > 0 && ps.Pairs[0] != nil {
		p := ps.Pairs[0]
		fp.Argv = []report.SideArgv{sideArgv(sides, sides.Far, p.Server, sides.FarRXE), sideArgv(sides, sides.Near, p.Client, sides.NearRXE)}
	}
	return fp, ends
}

// oneOrEach is the value when every "SIDE value" agrees, else all of them.
func oneOrEach(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	first := vs[0][strings.Index(vs[0], " ")+1:]
	for _, v := range vs[1:] {
		if v[strings.Index(v, " ")+1:] != first {
			return strings.Join(vs, ", ")
		}
	}
	return first
}

// sideArgv is one side's command line as it can be run again.
func sideArgv(sides *runbook.Sides, s runbook.Side, ps perftest.Process, info runbook.RXE) report.SideArgv {
	if s == nil {
		s = sides.Near
	}
	a := report.SideArgv{Role: string(ps.Role), Argv: ps.Argv}
	if len(ps.CPUs) > 0 {
		a.Argv = append([]string{"taskset", "-c", cpuList(ps.CPUs)}, a.Argv...)
	}
	if info.Netdev != "" && info.NetdevMTU > 0 {
		a.MTUs = []report.NetdevMTU{{Netdev: info.Netdev, MTU: info.NetdevMTU}}
	}
	if info.Netdev != "" && info.Device != "" {
		a.RXE = []report.RXELink{{Link: info.Device, Netdev: info.Netdev}}
	}
	switch s := s.(type) {
	case *runbook.Local:
		if s.Netns != "" {
			a.Netns = s.Netns
			a.Argv = append([]string{"ip", "netns", "exec", s.Netns}, a.Argv...)
		}
	case *runbook.Peer:
		a.Host = strings.TrimPrefix(s.Name(), "ssh ")
		if s.Netns != "" {
			a.Netns = s.Netns
			a.Argv = append([]string{"ip", "netns", "exec", s.Netns}, a.Argv...)
		}
	}
	return a
}

// toolVersions are the perftest and rdma-core versions on r: the
// package's (dpkg-query, else rpm) and perftest's own -V, as the lab's
// captures write them ("25.01.0+0.80-1 (Version: 6.24)").
func toolVersions(ctx context.Context, r host.Runner, program string) []report.Param {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var ps []report.Param
	pv := packageVersion(ctx, r, "perftest")
	if out, err := output(ctx, r, program, "-V"); err == nil {
		if v, err := perftest.ParseVersion(bytes.NewReader(out)); err == nil {
			pv = strings.TrimSpace(pv + " (Version: " + v + ")")
		}
	}
	if pv != "" {
		ps = append(ps, report.Param{Key: "perftest", Value: pv})
	}
	if v := packageVersion(ctx, r, "rdma-core"); v != "" {
		ps = append(ps, report.Param{Key: "rdma-core", Value: v})
	}
	return ps
}

// packageVersion is a package's installed version, "" when neither dpkg
// nor rpm knows it.
//
// Similar to: dpkg-query -W -f '${Version}' rdma-core || rpm -q --qf '%{VERSION}-%{RELEASE}' rdma-core
func packageVersion(ctx context.Context, r host.Runner, pkg string) string {
	for _, argv := range [][]string{{"dpkg-query", "-W", "-f", "${Version}", pkg}, {"rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", pkg}} {
		if out, err := output(ctx, r, argv...); err == nil {
			if v := strings.TrimSpace(string(out)); v != "" && !strings.Contains(v, " ") {
				return v
			}
		}
	}
	return ""
}

// versionTimeout bounds the version queries of one end: a tool that
// hangs costs the fingerprint a field, not the round.
const versionTimeout = 15 * time.Second

// output runs a command that ends by itself and returns its stdout.
func output(ctx context.Context, r host.Runner, argv ...string) ([]byte, error) {
	p, err := host.Run(ctx, r, host.Cmd{Argv: argv})
	if err != nil {
		return nil, err
	}
	return p.Stdout().Bytes(), nil
}
