package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/host"
	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// udpEndLog is one end's kernel log read at a round's start.
type udpEndLog struct {
	role   string // "near", "far", "host"
	side   runbook.Side
	before []kmsg.Record
	ok     bool
}

// readKernelLogs reads both ends' kernel logs before the runs (once when
// both ends share a kernel); an end whose log cannot be read is a note.
func (t *udpTuner) readKernelLogs(ctx context.Context, res *UDPRoundResult) []udpEndLog {
	ends := []udpEndLog{{role: "near", side: t.sides.Near}}
	if t.sides.Mode == runbook.TwoHosts {
		ends = append(ends, udpEndLog{role: "far", side: t.sides.Far})
	} else {
		ends[0].role = "host"
	}
	for i := range ends {
		recs, err := ends[i].side.KernelLog(ctx)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("kernel log of %s not read: %v", ends[i].side.Name(), err))
			continue
		}
		ends[i].before, ends[i].ok = recs, true
	}
	return ends
}

// kernelLogFindings reads the logs again and keeps the NICs' drivers'
// new lines: in the archive (kernel-log/ROLE.txt) and as findings.
func (t *udpTuner) kernelLogFindings(ctx context.Context, ends []udpEndLog, res *UDPRoundResult) {
	for _, e := range ends {
		if !e.ok {
			continue
		}
		after, err := e.side.KernelLog(ctx)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("kernel log of %s not read after the runs: %v", e.side.Name(), err))
			continue
		}
		f := kmsg.Filter{Drivers: []string{res.Near.Snapshot.Driver.Driver, res.Far.Snapshot.Driver.Driver},
			Netdevs: []string{res.Near.Snapshot.Netdev, res.Far.Snapshot.Netdev}}
		lines := f.Apply(kmsg.Since(e.before, after))
		var b strings.Builder
		for _, r := range lines {
			b.WriteString(r.Text + "\n")
		}
		res.Files = append(res.Files, report.ArchiveFile{Name: "kernel-log/" + e.role + ".txt", Data: []byte(b.String())})
		res.Round.Findings = append(res.Round.Findings, report.KernelLogFindings(e.role, kmsg.Summarize(lines))...)
	}
}

// udpRunOutput runs a command that ends by itself on a side and returns its
// stdout and stderr.
func udpRunOutput(ctx context.Context, side runbook.Side, argv []string) (string, error) {
	p, err := host.Run(ctx, side.Runner(), host.Cmd{Argv: argv, MaxOutputBytes: 1 << 16})
	if err != nil {
		return "", err
	}
	return p.Stdout().String() + p.Stderr().String(), nil
}
