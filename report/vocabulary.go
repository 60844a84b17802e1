package report

// Metric names: what Round.Metrics are called, defined once so that the
// builders (FromPerftest, FromNetperf, the workflow steps), the rules, the
// plots and the gates agree. They are part of the stored JSON form.
const (
	// perftest's bandwidth tests, per message size (LabelSize).
	MetricBWAvg   = "bw_avg"   // BW average[Gb/sec]
	MetricBWPeak  = "bw_peak"  // BW peak, when perftest measured it
	MetricMsgRate = "msg_rate" // MsgRate[Mpps]

	// perftest's latency tests, per message size (LabelSize).
	MetricTMin     = "t_min"
	MetricTTypical = "t_typical"
	MetricTAvg     = "t_avg"
	MetricTMax     = "t_max"
	MetricTStdev   = "t_stdev"
	MetricP99      = "p99"
	MetricP999     = "p99.9"
	MetricTPS      = "tps" // latency tests run for a duration (-D)

	// MetricValue is a bare perftest output's one number.
	MetricValue = "value"

	// netperf.
	MetricThroughput     = "throughput"      // the test's throughput
	MetricTransRate      = "trans_rate"      // request/response transactions per second
	MetricSendThroughput = "send_throughput" // UDP_STREAM's sending side
	MetricRecvThroughput = "recv_throughput" // UDP_STREAM's receiving side
	MetricLossRatio      = "loss_ratio"      // UDP datagrams lost, 0..1
	MetricSent           = "sent"            // UDP datagrams sent
	MetricReceived       = "received"        // UDP datagrams received
	MetricRTLatency      = "rt_latency"
	MetricMinLatency     = "min_latency"
	MetricMeanLatency    = "mean_latency"
	MetricP50Latency     = "p50_latency"
	MetricP90Latency     = "p90_latency"
	MetricP99Latency     = "p99_latency"
	MetricMaxLatency     = "max_latency"
	// MetricSockbufPrefix starts the socket buffer a netperf run got, by
	// side ("sockbuf_remote_recv").
	MetricSockbufPrefix = "sockbuf_"
	// MetricRecvFrameMean is the mean size of the frames the receiving
	// netdev counted during a UDP round (workflow).
	MetricRecvFrameMean = "recv_frame_mean"
)

// Parameter names: the Round.Params the builders set and the rules read.
const (
	ParamTest          = "test"       // perftest's or netperf's test name
	ParamMTU           = "mtu"        // the RoCE path MTU perftest reported
	ParamNetdevMTU     = "netdev_mtu" // the near netdev's MTU
	ParamPeerNetdevMTU = "peer_netdev_mtu"
	ParamQPs           = "qps"
	ParamArgv          = "argv"
	ParamMessageSize   = "message_size"
	ParamElapsedSec    = "elapsed_sec"
	ParamMode          = "mode" // runbook.Mode of the sides
	ParamGovernor      = "governor"
	ParamServerCPUs    = "server_cpus"
	ParamClientCPUs    = "client_cpus"
	// The UDP rounds' own (workflow.RunUDPRounds).
	ParamRound     = "round"      // the round's letter: "A", "S", "B"
	ParamSockbuf   = "sockbuf"    // the socket buffer asked for (-s/-S), bytes
	ParamMsgSize   = "msg_size"   // the -m asked for; ParamMessageSize is what netperf sent
	ParamLengthSec = "length_sec" // netperf -l
	ParamCount     = "count"      // repeats
	ParamSoakSec   = "soak_sec"   // a soak round's length (softroce-baseline -soak)
	// ParamSockbufPrefix starts the socket buffer a netperf run asked
	// for and got, by side ("sockbuf_remote_recv_asked", "…_got").
	ParamSockbufPrefix = "sockbuf_"
)

// LabelSize is the label of a perftest metric's message size
// ("size"="65536"): one Metric per size of a -a sweep.
const LabelSize = "size"
