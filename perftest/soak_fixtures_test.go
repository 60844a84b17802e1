package perftest

// The --run_infinitely -D 1 captures (ib_send_bw and ib_write_bw stopped by
// "timeout --preserve-status -s INT": the client after 12 s, the server
// 5 s later), checked by TestFixtures with the other cases. Every row has
// its BW peak printed as 0.00. TCG guests on a loaded host print fewer
// rows than seconds: the first interval starts after the QPs connect.
func init() {
	const (
		bwMB  = "MB/sec"
		bwMiB = "MiB/sec"
	)
	for name, want := range map[string]caseWant{
		"bookworm/send-bw-infinite": {
			server: bw(sBW, bwMB, 4, " 65536      42               0.00               2.54   \t\t   0.000041").notMeasured(4).w(WarnPeakNotMeasured),
			// The first interval ended before any send completed.
			client: bw(sBW, bwMB, 3, " 65536      0                0.00               0.00   \t\t   0.000000").notMeasured(3).w(WarnPeakNotMeasured),
		},
		"bookworm/write-bw-infinite": {
			// perftest 4.5's write server prints no rows and, when its
			// client dies of SIGINT, a handshake error.
			server:  bw(wBW, bwMB, 0, "").err(KindHandshake),
			client:  bw(wBW, bwMB, 5, " 65536      352              0.00               21.96  \t\t   0.000351").notMeasured(5).w(WarnPeakNotMeasured),
			failure: KindHandshake,
		},
		"trixie/send-bw-infinite": {
			// The server's last rows: the client is gone, 0.00.
			server: bw(sBW, bwMiB, 5, " 65536      208              0.00               12.88  \t\t     0.000206").notMeasured(5).w(WarnPeakNotMeasured),
			client: bw(sBW, bwMiB, 4, " 65536      208              0.00               12.73  \t\t     0.000204").notMeasured(4).w(WarnPeakNotMeasured),
		},
		"trixie/write-bw-infinite": {
			// 25.01's write server prints the table header, no rows,
			// and "Client closed connection" when the client stops.
			server: bw(wBW, bwMiB, 0, "").w(WarnPeakNotMeasured, WarnToolMessage).err(ErrTruncated),
			// SIGINT: "User stopped traffic", exit 0.
			client: bw(wBW, bwMiB, 4, " 65536      105              0.00               6.44   \t\t     0.000103").notMeasured(4).w(WarnPeakNotMeasured, WarnToolMessage),
		},
	} {
		fixtureTable[name] = want
	}
}
