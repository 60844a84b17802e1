package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rocekit/rocekit/kmsg"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

// endLog is one end's kernel log read at a round's start.
type endLog struct {
	role   string // "near", "far"
	side   runbook.Side
	info   runbook.NetdevInfo
	before []kmsg.Record
	ok     bool
}

// readKernelLogs reads both ends' kernel logs before the runs (once when
// both ends share a kernel); an end whose log cannot be read is a note.
func (t *tuner) readKernelLogs(ctx context.Context, res *roundResult) []endLog {
	ends := []endLog{{role: "near", side: t.sides.Near, info: res.Near}}
	if t.sides.Mode == runbook.TwoHosts {
		ends = append(ends, endLog{role: "far", side: t.sides.Far, info: res.Far})
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
func (t *tuner) kernelLogFindings(ctx context.Context, ends []endLog, res *roundResult) {
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
		res.Findings = append(res.Findings, report.KernelLogFindings(e.role, kmsg.Summarize(lines))...)
	}
}
