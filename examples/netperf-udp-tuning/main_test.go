package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rocekit/rocekit/examples/internal/cli"
	"github.com/rocekit/rocekit/internal/labtest"
	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/report"
	"github.com/rocekit/rocekit/runbook"
)

func TestParseRounds(t *testing.T) {
	for _, tc := range []struct {
		list    string
		want    []roundSpec
		wantErr string
	}{
		{list: "A,S,B,C,V", want: []roundSpec{{Letter: "A"}, {Letter: "S", Limits: true}, {Letter: "B", Limits: true, MTU: 9000},
			{Letter: "C", Limits: true, MTU: 9000, Spread: true}, {Letter: "V", Limits: true, MTU: 9000, Spread: true, Verify: true}}},
		{list: " a , c", want: []roundSpec{{Letter: "A"}, {Letter: "C", Limits: true, MTU: 9000, Spread: true}}},
		{list: "B", want: []roundSpec{{Letter: "B", Limits: true, MTU: 9000}}},
		{list: "s", want: []roundSpec{{Letter: "S", Limits: true}}},
		{list: "", wantErr: "empty"},
		{list: "A,D", wantErr: `unknown round "D"`},
		{list: "A,,B", wantErr: `unknown round ""`},
		{list: "AB", wantErr: `unknown round "AB"`},
		{list: "A,A", wantErr: "round A twice"},
		{list: "C,B", wantErr: "round B after C"},
	} {
		got, err := parseRounds(tc.list, 9000)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseRounds(%q) = %v, %v; want error with %q", tc.list, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseRounds(%q): %v", tc.list, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseRounds(%q) (-want +got):\n%s", tc.list, diff)
		}
	}
	if _, err := parseRounds("A,B", 0); err == nil || !strings.Contains(err.Error(), "-mtu 0") {
		t.Errorf("round B with -mtu 0: %v, want an MTU error", err)
	}
	if _, err := parseRounds("A,S", 0); err != nil {
		t.Errorf("rounds A and S need no MTU: %v", err)
	}
	if _, err := parseRounds("V", 1500); err == nil || !strings.Contains(err.Error(), "at least 8028") {
		t.Errorf("round V at MTU 1500: %v, want an MTU error", err)
	}
}

func TestRoundNames(t *testing.T) {
	specs, err := parseRounds("A,S,B,C,V", 9000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.name())
	}
	want := []string{"udp_stream_A_default", "udp_stream_S_sockmax", "udp_stream_B_sockmax_mtu9000",
		"udp_stream_C_sockmax_mtu9000_irqspread", "udp_stream_V_sockmax_mtu9000_irqspread_m8000_s4M"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"2M": 2 << 20, "256K": 256 << 10, "1G": 1 << 30, "2m": 2000000, "64k": 64000, "65536": 65536} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "0", "2X", "1.5M", "4G"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestRunRefusesLoopback: without a far end the run stops before it
// touches anything (no root needed).
func TestRunRefusesLoopback(t *testing.T) {
	c := config{Flags: cli.Flags{Netdev: "eth0"}, Rounds: "A,B,C", MTU: 9000, Length: 1, MsgSize: 1400,
		SockBuf: "2M", Count: 1, Governor: "performance", Out: t.TempDir()}
	if err := run(context.Background(), c, io.Discard, io.Discard); !errors.Is(err, errLoopback) {
		t.Errorf("run without -peer/-peer-netns: %v, want errLoopback", err)
	}
	c.Rounds = "B,A"
	if err := run(context.Background(), c, io.Discard, io.Discard); err == nil || errors.Is(err, errLoopback) {
		t.Errorf("bad -rounds: %v, want the rounds error first", err)
	}
}

// fakeResults are two rounds as the run builds them, without netperf.
func fakeResults() []roundResult {
	metric := func(name, unit string, vs ...float64) report.Metric {
		return report.Metric{Name: name, Unit: unit, Values: vs}
	}
	a := roundResult{Spec: roundSpec{Letter: "A"},
		Round: report.Round{Name: "udp_stream_A_default", Metrics: []report.Metric{
			metric("send_throughput", report.UnitMbps, 900, 1000, 1100),
			metric("recv_throughput", report.UnitMbps, 400, 300, 500),
			metric("loss_ratio", report.UnitRatio, 0.5, 0.7, 0.6),
			{Name: "cpu_soft", Labels: []report.Param{{Key: "cpu", Value: "0"}}, Unit: report.UnitPercent, Values: []float64{10, 12, 11}},
			metric("cpu_soft_max", report.UnitPercent, 60, 61, 59)},
			Outputs: []report.Output{{Repeat: 0}, {Repeat: 1}, {Repeat: 2}}},
		Near: runbook.NetdevInfo{Snapshot: nic.Snapshot{Netdev: "eth0", MTU: 1500, Device: nic.DeviceInfo{NUMANode: -1}}, Addr: "198.18.94.1"},
		Far: runbook.NetdevInfo{Snapshot: nic.Snapshot{Netdev: "eth1", MTU: 1500, Device: nic.DeviceInfo{NUMANode: -1}}, Addr: "198.18.94.2",
			IRQs: []irq.QueueIRQ{{IRQ: 30, Name: "virtio2-input.0"}}},
		FarAffinity: []irq.Affinity{{IRQ: 30, CPUs: irq.NewCPUList(0, 1, 2, 3), Effective: irq.NewCPUList(2)}},
		Receiver: runbook.Growth{
			Stats: nic.StatsDelta{Netdev: "eth1", Counters: []nic.CounterDelta{
				{Source: nic.SourceEthtool, Name: "rx_queue_0_drops", Class: nic.ClassDrop, Delta: 5},
				{Source: nic.SourceEthtool, Name: "rx_queue_0_packets", Delta: 1000},
				{Source: nic.SourceLink, Name: "rx_dropped", Class: nic.ClassDrop, Delta: 3},
				{Source: nic.SourceLink, Name: "rx_missed_errors", Class: nic.ClassMissed, Delta: 1}}},
			UDP:          nic.UDPCounters{RcvbufErrors: 7, InErrors: 7},
			Load:         irq.Load{CPUs: []irq.CPULoad{{CPU: 0, SoftPct: 10}, {CPU: 2, SoftPct: 60}}},
			Distribution: irq.Distribution{Netdev: "eth1", Concentrated: true, Reasons: []string{"2 queue IRQs fired, all on CPU2"}},
		},
		Findings: []report.Finding{{Rule: report.RuleUDPLoss, Severity: report.SeverityWarning, Summary: "UDP loss 60.00%"}},
	}
	c := roundResult{Spec: roundSpec{Letter: "C", MTU: 9000, Spread: true},
		Round: report.Round{Name: "udp_stream_C_mtu9000_irqspread", Metrics: []report.Metric{
			metric("recv_throughput", report.UnitMbps, 800, 1000)}},
		Far:         runbook.NetdevInfo{Snapshot: nic.Snapshot{Netdev: "eth1", MTU: 9000}},
		Receiver:    runbook.Growth{Distribution: irq.Distribution{OK: true}},
		GovernorSet: true,
		Changes:     []string{"MTU 9000 on eth0 (local) and eth1 (netns udppeer)"},
		Notes:       []string{"governor performance not set on local: no cpufreq"},
		Findings:    []report.Finding{{Rule: ruleGovernorNotSet, Severity: report.SeverityInfo, Summary: "not set"}},
	}
	return []roundResult{a, c}
}

func TestBuildSummary(t *testing.T) {
	got := buildSummary(runbook.TwoNetns, fakeResults())
	f := func(v float64) *float64 { return &v }
	want := summary{Mode: "netns",
		Rounds: []roundSummary{
			{Name: "udp_stream_A_default", Letter: "A", NetdevMTU: 1500, SendMbps: f(1000), RecvMbps: f(400), LossPct: f(60),
				// ethtool 5 against link 3+1: the larger source.
				NICDrops: 5, UDPRcvbufErrors: 7, IRQOK: false, IRQReasons: []string{"2 queue IRQs fired, all on CPU2"}, HotCore: 2},
			{Name: "udp_stream_C_mtu9000_irqspread", Letter: "C", NetdevMTU: 9000, RecvMbps: f(900),
				IRQOK: true, IRQReasons: []string{}, HotCore: -1, GovernorSet: true},
		},
		Findings: []findingSummary{
			{Round: "udp_stream_A_default", Severity: "warning", Rule: "udp_loss", Summary: "UDP loss 60.00%"},
			{Round: "udp_stream_C_mtu9000_irqspread", Severity: "info", Rule: ruleGovernorNotSet, Summary: "not set"},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	// The JSON keys are the documented ones; missing numbers are null.
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"mode":"netns"`, `"send_mbps":null`, `"loss_pct":null`, `"irq_reasons":[]`, `"hot_core":-1`,
		`"udp_rcvbuf_errors":7`, `"nic_drops":5`, `"governor_set":true`, `"letter":"C"`, `"netdev_mtu":9000`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("summary.json lacks %s:\n%s", k, b)
		}
	}
	if b, _ := json.Marshal(buildSummary(runbook.TwoHosts, nil)); string(b) != `{"mode":"two-host","rounds":[],"findings":[]}` {
		t.Errorf("empty summary: %s", b)
	}
}

func TestWriteMarkdown(t *testing.T) {
	sides := &runbook.Sides{Mode: runbook.TwoNetns, Near: &runbook.Local{}, Far: &runbook.Local{Netns: "udppeer"},
		NearNetdev: "eth0", FarNetdev: "eth1"}
	var b strings.Builder
	if err := writeMarkdown(&b, sides, fakeResults()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# netperf UDP_STREAM tuning (netns)",
		"| sender (netperf, local) | receiver (netserver, netns udppeer) |",
		"| queue IRQs → affinity | none | 30 virtio2-input.0 → 0-3 (effective 2) |",
		"| metric | unit | udp_stream_A_default | udp_stream_C_mtu9000_irqspread |",
		"## Round A: udp_stream_A_default",
		"send 1000.00 Mbit/s, receive 400.00 Mbit/s, loss 60.00%",
		"ethtool.rx_queue_0_drops +5, link.rx_dropped +3, link.rx_missed_errors +1",
		"RcvbufErrors 7",
		"**not OK** (2 queue IRQs fired, all on CPU2)",
		"CPU2 60% soft",
		"**warning** udp_loss: UDP loss 60.00%",
		"## Round C: udp_stream_C_mtu9000_irqspread",
		"  - MTU 9000 on eth0 (local) and eth1 (netns udppeer)",
		"- note: governor performance not set on local: no cpufreq",
		"![receiver CPU load and queue interrupts, round C](cpu-C.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// Per-CPU rows stay out of the side-by-side table; the maximum stays.
	if strings.Contains(md, "cpu_soft/cpu=0") || !strings.Contains(md, "| cpu_soft_max | % |") {
		t.Errorf("side-by-side table: want cpu_soft_max and no per-CPU rows:\n%s", md)
	}
}

// TestReceiveBufferText: the kernel reads a granted SO_RCVBUF back
// doubled, so "asked 8 MiB, got 8 MiB" is a clamp to half and must say
// so; twice the request is granted.
func TestReceiveBufferText(t *testing.T) {
	for _, tc := range []struct {
		asked string
		got   float64
		want  string
	}{
		{"8388608", 8388608, "asked 8388608 bytes (-S): **clamped**, it reads back 8388608 where a granted buffer reads back 16777216 (the kernel doubles SO_RCVBUF): net.core.rmem_max on the receiver is 4194304"},
		{"2097152", 425984, "asked 2097152 bytes (-S): **clamped**, it reads back 425984 where a granted buffer reads back 4194304 (the kernel doubles SO_RCVBUF): net.core.rmem_max on the receiver is 212992"},
		{"1048576", 2097152, "asked 1048576 bytes (-S): granted, it reads back 2097152 (the kernel doubles SO_RCVBUF)"},
		{"", 2097152, "reads back 2097152 bytes (-S not recorded)"},
	} {
		if got := receiveBufferText(tc.asked, tc.got); got != tc.want {
			t.Errorf("receiveBufferText(%q, %v) = %q\nwant %q", tc.asked, tc.got, got, tc.want)
		}
	}
}

// TestSideArgv: the archive's command lines carry what each side ran
// with, for rerun.sh to set again: the netdev MTU of each end, the
// socket buffer limits where the round raised them, and the far end's
// namespace or SSH target.
func TestSideArgv(t *testing.T) {
	near, far := &runbook.Local{}, &runbook.Local{Netns: "udppeer"}
	tu := &tuner{c: config{Flags: cli.Flags{PeerNetns: "udppeer"}},
		sides: &runbook.Sides{Mode: runbook.TwoNetns, Near: near, Far: far, NearNetdev: "eth0", FarNetdev: "eth1"},
		limit: 2 << 20, hosts: []report.HostFacts{{Sysctls: map[string]string{"net.core.rmem_max": "4194304", "net.core.wmem_max": "2097152"}}}}
	res := &roundResult{Near: runbook.NetdevInfo{Snapshot: nic.Snapshot{MTU: 9000}}, Far: runbook.NetdevInfo{Snapshot: nic.Snapshot{MTU: 9000}}}
	got := []report.SideArgv{tu.argv("server", far, []string{"netserver", "-D"}, res), tu.argv("client", near, []string{"netperf"}, res)}
	want := []report.SideArgv{
		{Role: "server", Argv: []string{"ip", "netns", "exec", "udppeer", "netserver", "-D"}, Netns: "udppeer",
			MTUs: []report.NetdevMTU{{Netdev: "eth1", MTU: 9000}}},
		{Role: "client", Argv: []string{"netperf"}, MTUs: []report.NetdevMTU{{Netdev: "eth0", MTU: 9000}},
			Sysctls: []report.Param{{Key: "net.core.rmem_max", Value: "4194304"}, {Key: "net.core.wmem_max", Value: "2097152"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("netns (-want +got):\n%s", d)
	}
	tu.sides.Mode, tu.c.Peer, tu.c.PeerNetns, tu.limit = runbook.TwoHosts, "root@198.18.0.2:2222", "", 0
	a := tu.argv("server", far, []string{"netserver"}, res)
	if d := cmp.Diff(report.SideArgv{Role: "server", Host: "root@198.18.0.2:2222", Argv: []string{"netserver"},
		MTUs: []report.NetdevMTU{{Netdev: "eth1", MTU: 9000}}}, a); d != "" {
		t.Errorf("two hosts, limits not raised (-want +got):\n%s", d)
	}
}

// TestValidate: every bad flag is refused before anything touches the
// system, -governor included (it was found only in round C); a negative
// -timeout is refused, not taken as none.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := func() config {
		return config{Flags: cli.Flags{Netdev: "rktest0", PeerNetns: "rktestpeer", PeerNetdev: "rktest1", Journal: dir + "/journal.jsonl"},
			Rounds: "A,S,B,C", MTU: 9000, Length: 1, MsgSize: 1400, SockBuf: "2M", Count: 1, Governor: "performance", Interval: 1, Out: dir + "/out"}
	}
	labtest.CheckRefusals(t, func() config { return good() }, []labtest.Refusal[config]{
		{Set: func(c *config) { c.Governor = "perfomance" }, Want: `-governor "perfomance": want one of the kernel's governors`},
		{Set: func(c *config) { c.Timeout = -time.Second }, Want: "-timeout -1s: want 0 or more"},
		{Set: func(c *config) { c.Count = 0 }, Want: "-count 0: want 1 or more"},
		{Set: func(c *config) { c.Length = -1 }, Want: "-l -1: want 1 or more"},
		{Set: func(c *config) { c.Interval = -1 }, Want: "-interval -1: want 0 (off) or more"},
		{Set: func(c *config) { c.MTU = 70000 }, Want: "-mtu 70000: round B needs an MTU from 68 to 65535"},
		{Set: func(c *config) { c.SockBuf = "2X" }, Want: "-sockbuf"},
		{Set: func(c *config) { c.Rounds = "B,A" }, Want: "round A after B"},
	}, config.validate, quietRun, cli.ErrBadFlag)
	// The governor is only read with round C.
	c := good()
	c.Rounds, c.Governor = "A,B", "perfomance"
	if err := c.validate(); err != nil {
		t.Errorf("-governor without round C: %v", err)
	}
}

// quietRun runs the example with its output discarded.
func quietRun(c config) error { return run(context.Background(), c, io.Discard, io.Discard) }
