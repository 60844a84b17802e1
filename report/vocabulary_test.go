package report

import "testing"

// The names are the stored JSON form of every round: renaming one orphans
// the rounds of every store kept so far. This test pins them.
func TestVocabularyStoredForm(t *testing.T) {
	for got, want := range map[string]string{
		MetricBWAvg: "bw_avg", MetricBWPeak: "bw_peak", MetricMsgRate: "msg_rate",
		MetricTMin: "t_min", MetricTTypical: "t_typical", MetricTAvg: "t_avg", MetricTMax: "t_max",
		MetricTStdev: "t_stdev", MetricP99: "p99", MetricP999: "p99.9", MetricTPS: "tps", MetricValue: "value",
		MetricThroughput: "throughput", MetricTransRate: "trans_rate", MetricSendThroughput: "send_throughput",
		MetricRecvThroughput: "recv_throughput", MetricLossRatio: "loss_ratio", MetricSent: "sent",
		MetricReceived: "received", MetricRTLatency: "rt_latency", MetricMinLatency: "min_latency",
		MetricMeanLatency: "mean_latency", MetricP50Latency: "p50_latency", MetricP90Latency: "p90_latency",
		MetricP99Latency: "p99_latency", MetricMaxLatency: "max_latency", MetricSockbufPrefix: "sockbuf_",
		MetricRecvFrameMean: "recv_frame_mean",
		ParamTest:           "test", ParamMTU: "mtu", ParamNetdevMTU: "netdev_mtu", ParamPeerNetdevMTU: "peer_netdev_mtu",
		ParamQPs: "qps", ParamArgv: "argv", ParamMessageSize: "message_size", ParamElapsedSec: "elapsed_sec",
		ParamMode: "mode", ParamGovernor: "governor", ParamServerCPUs: "server_cpus", ParamClientCPUs: "client_cpus",
		ParamRound: "round", ParamSockbuf: "sockbuf", ParamMsgSize: "msg_size", ParamLengthSec: "length_sec",
		ParamCount: "count", ParamSoakSec: "soak_sec", LabelSize: "size",
	} {
		if got != want {
			t.Errorf("name %q, stored form %q", got, want)
		}
	}
}

// A perftest round from a real capture carries its metrics under the
// constants' names.
func TestPerftestRoundUsesVocabulary(t *testing.T) {
	r, err := FromPerftest("send_bw_a", t0, perftestFixture(t, "trixie", "send-bw-a", "client"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{MetricBWAvg, MetricMsgRate} {
		found := false
		for _, m := range r.Metrics {
			if m.Name == name {
				if sz, ok := m.Label(LabelSize); !ok || sz == "" {
					t.Errorf("%s has no %s label: %+v", name, LabelSize, m.Labels)
				}
				found = true
			}
		}
		if !found {
			t.Errorf("no %s metric in %v", name, r.Metrics)
		}
	}
	if v, ok := r.Param(ParamTest); !ok || v == "" {
		t.Errorf("no %s parameter", ParamTest)
	}
}

// A zero field of Thresholds is DefaultThresholds', each on its own, as
// in irq and bottleneck.
func TestThresholdsWithDefaults(t *testing.T) {
	if got := (Thresholds{}).WithDefaults(); got != DefaultThresholds {
		t.Errorf("zero: %+v, want %+v", got, DefaultThresholds)
	}
	want := DefaultThresholds
	want.MaxLossRatio = 0.05
	if got := (Thresholds{MaxLossRatio: 0.05}).WithDefaults(); got != want {
		t.Errorf("MaxLossRatio only: %+v, want %+v", got, want)
	}
}
