package report

// Samples for the comparison tests: ib_send_bw -s 65536 repeated ten times
// at MTU 1500 and at MTU 9000 (Gbit/s), and latency t_typical (us). The
// values are shaped after the lab's runs; the fixtures hold single runs.
var (
	bw1500  = []float64{3.91, 4.02, 3.87, 3.95, 4.10, 3.99, 3.93, 4.05, 3.89, 3.97}
	bw9000  = []float64{5.81, 5.92, 5.77, 6.03, 5.88, 5.95, 5.84, 5.99, 5.90, 5.86}
	lat1500 = []float64{34.1, 34.5, 33.9, 34.2, 34.8, 34.0, 34.3, 34.6, 34.1, 34.4}
	lat9000 = []float64{34.3, 34.0, 34.6, 34.2, 34.1, 34.7, 34.4, 33.9, 34.5, 34.2}
)

func sampleFingerprint(mtu int, pathMTU int) *Fingerprint {
	return &Fingerprint{
		Kernel: "6.1.0-50-amd64",
		RXE:    []RXEFingerprint{{Link: "rxe0", Netdev: "eth1", State: "ACTIVE/LINK_UP", GIDIndex: 1, GID: "::ffff:198.18.0.1", GIDType: "RoCE v2"}},
		NICs: []NICFingerprint{{Netdev: "eth1", MTU: mtu, RoCEPathMTU: pathMTU, Driver: "virtio_net", DriverVersion: "1.0.0",
			SpeedMbps: -1, ChannelsComb: 4, NUMANode: -1}},
		Governor:   "performance",
		IRQBalance: "stopped",
		Tools:      []Param{{"perftest", "4.5+0.17-1"}},
		Argv: []SideArgv{
			{Role: "server", Argv: []string{"ib_send_bw", "-d", "rxe0", "-x", "1", "-F", "--report_gbits"}},
			{Role: "client", Argv: []string{"ib_send_bw", "-d", "rxe0", "-x", "1", "-F", "--report_gbits", "198.18.0.1"}},
		},
	}
}

func sampleRound(name, mtu string, bw, lat []float64, fp *Fingerprint) Round {
	return Round{
		Name: name, Start: t0, DurationSec: 120,
		Params:      []Param{{"test", "Send BW Test"}, {"mtu", mtu}, {"qps", "1"}},
		Fingerprint: fp,
		Metrics: []Metric{
			{Name: "bw_avg", Labels: []Param{{"size", "65536"}}, Unit: UnitGbps, Better: HigherIsBetter, Values: bw},
			{Name: "t_typical", Labels: []Param{{"size", "2"}}, Unit: UnitMicros, Better: LowerIsBetter, Values: lat},
		},
		Warnings: []string{"repeat 3: line 31: WARNING: BW peak won't be measured in this run."},
	}
}

func baselineRound() Round {
	return sampleRound("mtu1500", "1500", bw1500, lat1500, sampleFingerprint(1500, 1024))
}

func candidateRound() Round {
	return sampleRound("mtu9000", "9000", bw9000, lat9000, sampleFingerprint(9000, 4096))
}
