package report

import (
	"fmt"
	"slices"

	"github.com/rocekit/rocekit/irq"
	"github.com/rocekit/rocekit/nic"
	"github.com/rocekit/rocekit/rxe"
)

// Severity ranks a finding.
type Severity string

// The severities.
const (
	SeverityInfo     Severity = "info"     // worth knowing; nothing is wrong
	SeverityWarning  Severity = "warning"  // costs performance; tune it
	SeverityCritical Severity = "critical" // the measurement is not what it claims
)

// Evidence is one number a finding rests on.
type Evidence struct {
	Name  string  `json:"name"`  // "t_max", "ethtool.rx_queue_0_drops"
	Value float64 `json:"value"` // the number
	Unit  string  `json:"unit"`  // "us", "count", "ratio"
}

// Finding is the outcome of a diagnosis rule: what is wrong, the numbers
// that show it, and what to do.
type Finding struct {
	Rule     string     `json:"rule"`     // the Rule constant
	Severity Severity   `json:"severity"` // info, warning, critical
	Summary  string     `json:"summary"`  // what is wrong, in one line with its numbers
	Evidence []Evidence `json:"evidence"` // the numbers, by name
	Action   string     `json:"action"`   // what to do, with the commands
}

// The rules, as Finding.Rule names them.
const (
	RuleMTUNotFollowed    = "mtu_not_followed"
	RulePathMTUUnchanged  = "roce_path_mtu_unchanged"
	RuleMTUSamePath       = "mtu_same_path_mtu"
	RuleJitter            = "latency_jitter"
	RuleQPKnee            = "qp_scaling_knee"
	RuleUDPLoss           = "udp_loss"
	RuleBufferClamped     = "socket_buffer_clamped"
	RuleIRQConcentrated   = "irq_concentrated"
	RuleIRQOffNode        = "irq_off_numa_node"
	RuleHotSoftirq        = "hot_softirq_core"
	RuleGovernor          = "governor_not_performance"
	RuleBelowLinkSpeed    = "throughput_below_link_speed"
	RuleGIDNotRoCEv2IPv4  = "gid_not_roce_v2_ipv4"
	RuleIRQBalanceRunning = "irqbalance_after_affinity"
	RuleLinkSpeedDegraded = "link_speed_below_supported"
)

// Thresholds tune the rules. Like bottleneck.Thresholds and
// irq.Thresholds it is passed by value and a zero field means its default
// (the field of DefaultThresholds); WithDefaults fills them in.
type Thresholds struct {
	// MinMTUGain is the bandwidth ratio high-MTU/low-MTU below which
	// bandwidth "does not follow MTU" (default 1.10).
	MinMTUGain float64
	// MaxJitterRatio is t_max/t_typical above which latency is jittery
	// (default 10).
	MaxJitterRatio float64
	// MinQPGain is the bandwidth ratio between successive QP counts below
	// which scaling has reached its knee (default 1.10).
	MinQPGain float64
	// MaxLossRatio is the UDP loss ratio above which loss is reported
	// (default 0.01).
	MaxLossRatio float64
	// MaxSoftPct is the softirq share of one CPU above which it is hot
	// (default 80).
	MaxSoftPct float64
	// MinLinkShare is the share of link speed below which throughput is
	// "far below" it (default 0.5).
	MinLinkShare float64
}

// DefaultThresholds are the runbooks' rules of thumb.
var DefaultThresholds = Thresholds{MinMTUGain: 1.10, MaxJitterRatio: 10, MinQPGain: 1.10, MaxLossRatio: 0.01, MaxSoftPct: 80, MinLinkShare: 0.5}

// WithDefaults returns t with each zero field set to DefaultThresholds'.
func (t Thresholds) WithDefaults() Thresholds {
	d := DefaultThresholds
	pick := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	return Thresholds{pick(t.MinMTUGain, d.MinMTUGain), pick(t.MaxJitterRatio, d.MaxJitterRatio), pick(t.MinQPGain, d.MinQPGain),
		pick(t.MaxLossRatio, d.MaxLossRatio), pick(t.MaxSoftPct, d.MaxSoftPct), pick(t.MinLinkShare, d.MinLinkShare)}
}

// DiagnosisInput is what Diagnose looks at; every part is optional and a
// rule runs only when its inputs are there.
type DiagnosisInput struct {
	// Round is the round under diagnosis (jitter, UDP loss, link speed).
	Round *Round
	// MTULow and MTUHigh are the same test at two MTUs (1500 and 9000);
	// MTUMetric the metric key to compare ("bw_avg/size=65536").
	MTULow, MTUHigh *Round
	MTUMetric       string // metric key for the MTU rule
	// QPRounds are the same test at several QP counts (parameter "qps");
	// QPMetric the metric key.
	QPRounds []Round
	QPMetric string // metric key for the QP rule
	// NICDelta is the change of the NIC counters over the round, UDP the
	// change of /proc/net/snmp Udp (UDPCounters.Sub).
	NICDelta *nic.StatsDelta
	UDP      *nic.UDPCounters // a delta
	// Distribution is where the NIC's queue interrupts fired.
	Distribution *irq.Distribution
	// Hot is the CPU that spent most time in softirq (irq.LoadReport.Hot).
	Hot *irq.HotCore
	// Governors are the CPUs' cpufreq governors.
	Governors []irq.CPUGovernor
	// IRQBalancePIDs are irqbalance's processes; AffinitySet says rocekit
	// set IRQ affinity for this round.
	IRQBalancePIDs []int
	AffinitySet    bool // IRQ affinity was set by hand for the round
	// GID is the GID the test used (rxe.Selection.Entry).
	GID *rxe.GIDEntry
	// Link is the NIC's link; SupportedSpeedMbps the fastest speed the
	// card supports (ethtool's "Supported link modes"; nic.LinkSettings
	// does not have it, so the caller gives it; 0 skips the rule).
	Link               *nic.LinkSettings
	SupportedSpeedMbps int // 0: unknown, the rule is skipped
	// ThroughputMetric is the key of the round's throughput metric for the
	// link-speed rule ("throughput" for netperf, "bw_avg/size=65536").
	ThroughputMetric string
	Thresholds       Thresholds // zero fields are DefaultThresholds'
}

// Diagnose runs every rule whose inputs are present and returns the
// findings, the most severe first.
func Diagnose(in DiagnosisInput) []Finding {
	th := in.Thresholds.WithDefaults()
	var fs []Finding
	add := func(f []Finding) { fs = append(fs, f...) }
	if in.MTULow != nil && in.MTUHigh != nil {
		add(CheckMTU(*in.MTULow, *in.MTUHigh, in.MTUMetric, th))
	}
	if in.Round != nil {
		add(CheckJitter(*in.Round, th))
		add(CheckSocketBuffers(*in.Round))
		add(CheckUDPLoss(*in.Round, in.NICDelta, in.UDP, th))
		if in.Link != nil {
			add(CheckLinkUtilisation(*in.Round, in.ThroughputMetric, *in.Link, th))
		}
	}
	if len(in.QPRounds) > 1 {
		add(CheckQPScaling(in.QPRounds, in.QPMetric, th))
	}
	if in.Distribution != nil {
		add(CheckIRQDistribution(*in.Distribution))
	}
	if in.Hot != nil {
		add(CheckSoftirq(*in.Hot, th))
	}
	if len(in.Governors) > 0 {
		add(CheckGovernor(in.Governors))
	}
	add(CheckIRQBalance(in.IRQBalancePIDs, in.AffinitySet))
	if in.GID != nil {
		add(CheckGID(*in.GID))
	}
	if in.Link != nil {
		add(CheckLinkSpeed(*in.Link, in.SupportedSpeedMbps))
	}
	SortFindings(fs)
	return fs
}

// SortFindings orders findings most severe first (critical, warning,
// info), keeping the order within a severity.
func SortFindings(fs []Finding) {
	rank := map[Severity]int{SeverityCritical: 0, SeverityWarning: 1, SeverityInfo: 2}
	slices.SortStableFunc(fs, func(a, b Finding) int { return rank[a.Severity] - rank[b.Severity] })
}

// median returns the median of a metric's values (NaN when none).
func median(m Metric) float64 { return Summarize(m).Median }

func one(f Finding) []Finding { return []Finding{f} }

func ev(name string, v float64, unit string) Evidence { return Evidence{name, v, unit} }

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
