package plot

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rocekit/rocekit/report"
)

// figureCase is one picture drawn from real rounds, with texts it must
// show.
type figureCase struct {
	name string
	draw func(t *testing.T) (Figure, error)
	want []string
}

func figureCases() []figureCase {
	return []figureCase{
		{"rounds-mtu-sweep", func(t *testing.T) (Figure, error) {
			return Rounds(demoRounds(t, "mtu-sweep"), "bw_avg/size=65536", RoundsOptions{})
		}, []string{"bw_avg/size=65536 by round", "ib_send_bw_mtu1500", "ib_send_bw_mtu9000", "baseline", "few runs"}},
		{"udp", func(t *testing.T) (Figure, error) { return UDP(demoRounds(t, "netperf-udp-tuning")) },
			[]string{"udp_stream_A_default", "udp_stream_C_mtu9000_irqspread", "loss (%)", "send (netperf) median", "receive (netserver) runs", "drops +"}},
		{"udp-5rounds", func(t *testing.T) (Figure, error) { return UDP(demoRounds(t, "netperf-udp-tuning-5rounds")) },
			[]string{"udp_stream_S_sockmax", "udp_stream_V_s…read_m8000_s4M", "drops +0"}},
		{"qps-demo", func(t *testing.T) (Figure, error) {
			return QPScaling(demoRounds(t, "qp-scaling"), "bw_avg/size=65536", 0)
		}, []string{"knee at 4 QPs: ×0.62 from 2 QPs (below ×1.10)"}},
		{"sweep", func(t *testing.T) (Figure, error) {
			return Sweep([]report.Round{perftestRound(t, "bookworm mtu1024", "bookworm", "send-bw-a"), perftestRound(t, "trixie mtu1024", "trixie", "send-bw-a")})
		}, []string{"message size (B, log2)", "bw_avg (Gbit/s)", "msg_rate (Mpps)", "RoCE path MTU 1024 B: every round"}},
		{"rounds-ceiling", func(t *testing.T) (Figure, error) {
			return Rounds(withCeiling(t, demoRounds(t, "mtu-sweep"), 1000), "bw_avg/size=65536", RoundsOptions{})
		}, []string{"ceiling of the round's path"}},
		{"sweep-ceiling", func(t *testing.T) (Figure, error) {
			return Sweep(withCeiling(t, []report.Round{perftestRound(t, "trixie mtu1024", "trixie", "send-bw-a")}, 100))
		}, []string{"ceiling of the path"}},
		{"latency", func(t *testing.T) (Figure, error) {
			return Latency([]report.Round{perftestRound(t, "bookworm", "bookworm", "send-lat-a"), perftestRound(t, "trixie", "trixie", "send-lat")})
		}, []string{"bookworm @2 B", "trixie @2 B", "max/typ ×", "p99.9"}},
		{"latency-demo", func(t *testing.T) (Figure, error) { return Latency(demoRounds(t, "softroce-baseline")) },
			[]string{"ib_send_lat @2 B", "max/typ ×"}},
		{"qps", func(t *testing.T) (Figure, error) { return QPScaling(qpRounds(t), "bw_avg/size=65536", 0) },
			[]string{"queue pairs (-q, log2)", "ideal:", "knee at 4 QPs: ×1.02 from 2 QPs (below ×1.10)"}},
		{"cpu-guest", func(t *testing.T) (Figure, error) { return CPULoad(guestRound(t), CPULoadOptions{}) },
			[]string{"%soft", "% of the NIC's queue interrupts", "NUMA node 0 of eth0 (CPUs 0)"}},
		{"cpu-demo", func(t *testing.T) (Figure, error) {
			return CPULoad(demoRounds(t, "netperf-udp-tuning")[2], CPULoadOptions{})
		}, []string{"udp_stream_C_mtu9000_irqspread", "no NUMA node CPUs recorded (eth0 numa_node -1"}},
		{"interims", func(t *testing.T) (Figure, error) { return Interims([]report.Round{interimRound(t)}, "throughput") },
			[]string{"throughput over time", "tcp_stream_demo run 0", "throughput (Mbit/s)"}},
		{"interims-5rounds", func(t *testing.T) (Figure, error) {
			return Interims(withInterims(t, demoRounds(t, "netperf-udp-tuning-5rounds"), 3), "throughput")
		},
			[]string{"udp_stream_V_sockmax_mtu9000_irqspread_m8000_s4M run 2", "udp_stream_A_default run 0"}},
		{"interims-perftest", func(t *testing.T) (Figure, error) {
			return Interims([]report.Round{soakRound(t, "trixie", "send-bw-infinite"), soakRound(t, "trixie", "send-bw-infinite", "server"),
				soakRound(t, "bookworm", "send-bw-infinite", "server")}, "bw_avg")
		}, []string{"bw_avg over time", "send-bw-infinite trixie server run 0", "bw_avg (Gbit/s)"}},
	}
}

// qpRounds are the demo's mtu-sweep rounds relabelled as a QP sweep
// (1, 2, 4), the third's runs set to the second's × 1.02: a knee at 4.
func qpRounds(t *testing.T) []report.Round {
	rs := demoRounds(t, "mtu-sweep")
	for i := range rs {
		rs[i].SetParam("qps", fmt.Sprint(1<<i))
		rs[i].Name = fmt.Sprintf("ib_send_bw_q%d", 1<<i)
	}
	k := "bw_avg/size=65536"
	m1, _ := rs[1].Metric(k)
	for i, m := range rs[2].Metrics {
		if m.Key() == k {
			rs[2].Metrics[i].Values = nil
			for _, v := range m1.Values {
				rs[2].Metrics[i].Values = append(rs[2].Metrics[i].Values, v*1.02)
			}
		}
	}
	return rs
}

func TestFigures(t *testing.T) {
	for _, tc := range figureCases() {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := tc.draw(t)
			if err != nil {
				t.Fatal(err)
			}
			svg := string(fig.SVG)
			if !strings.HasPrefix(svg, "<?xml") || !strings.Contains(svg, "<svg") {
				t.Fatalf("not SVG: %.80s", svg)
			}
			for _, w := range append(tc.want, fig.Title) {
				if !strings.Contains(svg, escape(w)) {
					t.Errorf("SVG lacks %q", w)
				}
			}
			if strings.Contains(svg, fontFamily) || !strings.Contains(svg, fontFallback) {
				t.Error("SVG names Liberation Sans without fallbacks")
			}
			if fig.Caption == "" || fig.Name == "" {
				t.Errorf("figure without caption or name: %+v", fig.Name)
			}
			for _, p := range layoutProblems(fig.frame) {
				t.Error(p)
			}
			savePNG(t, tc.name, fig)
		})
	}
}

// escape is what vgsvg writes for s.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}

// TestLayoutManyRounds draws each row picture for 1 to 20 rounds with
// names of 40 characters and checks that no text is cut or overlaps.
func TestLayoutManyRounds(t *testing.T) {
	udp := demoRounds(t, "netperf-udp-tuning")[0]
	sweep := demoRounds(t, "mtu-sweep")[2]
	lat := perftestRound(t, "lat", "bookworm", "send-lat-a")
	sweepA := perftestRound(t, "sweep", "trixie", "send-bw-a")
	interim := interimRound(t)
	for _, n := range []int{1, 2, 3, 7, 12, 20} {
		draws := map[string]func() (Figure, error){
			"rounds":   func() (Figure, error) { return Rounds(many(sweep, n, 2), "bw_avg/size=65536", RoundsOptions{}) },
			"udp":      func() (Figure, error) { return UDP(many(udp, n, 1)) },
			"latency":  func() (Figure, error) { return Latency(many(lat, n, 1)) },
			"sweep":    func() (Figure, error) { return Sweep(many(sweepA, n, 1)) },
			"cpu":      func() (Figure, error) { return CPULoad(many(udp, n, 1)[n-1], CPULoadOptions{}) },
			"interims": func() (Figure, error) { return Interims(many(interim, n, 1), "throughput") },
			"interims-bw": func() (Figure, error) {
				return Interims(many(soakRound(t, "trixie", "send-bw-infinite"), n, 1), "bw_avg")
			},
		}
		for name, draw := range draws {
			t.Run(fmt.Sprintf("%s-%d", name, n), func(t *testing.T) {
				fig, err := draw()
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range layoutProblems(fig.frame) {
					t.Error(p)
				}
				if n == 20 || n == 1 {
					savePNG(t, fmt.Sprintf("%s-%d", name, n), fig)
				}
			})
		}
	}
}

func TestFiguresWithoutData(t *testing.T) {
	empty := []report.Round{{Name: "empty", Metrics: []report.Metric{{Name: "other", Unit: "x", Values: []float64{1}}}}}
	for name, err := range map[string]error{
		"rounds":   second(Rounds(empty, "bw_avg", RoundsOptions{})),
		"baseline": second(Rounds(empty, "other", RoundsOptions{Baseline: "nope"})),
		"udp":      second(UDP(nil)),
		"sweep":    second(Sweep(empty)),
		"latency":  second(Latency(empty)),
		"qps":      second(QPScaling(empty, "other", 0)),
		"cpu":      second(CPULoad(empty[0], CPULoadOptions{})),
		"interims": second(Interims(empty, "throughput")),
	} {
		if !errors.Is(err, report.ErrNoData) {
			t.Errorf("%s: %v, want report.ErrNoData", name, err)
		}
	}
}

func second(_ Figure, err error) error { return err }

// TestFileName: what is not a letter, digit, '-', '_' or '.' becomes one
// '_' per rune.
func TestFileName(t *testing.T) {
	if got, want := FileName("mtu 9000/ä.x-y_Z"), "mtu_9000__.x-y_Z"; got != want {
		t.Errorf("FileName = %q, want %q", got, want)
	}
}
