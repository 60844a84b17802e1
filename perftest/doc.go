// Package perftest reads the output of the linux-rdma perftest tools
// (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw and their _lat
// counterparts) into typed results: what `ib_send_bw ... | tail -2 | awk
// '{print $4}'` does in the runbooks, without its failure modes.
//
// The parsers are pure functions of an io.Reader, tested on real captures
// of perftest 4.5-0.17 (Debian bookworm) and 25.01 (trixie), on the
// format strings up to 26.04, and on outputs of real hardware from public
// bug reports, mailing lists and guides (testdata/realworld/perftest:
// mlx4, mlx5, irdma, bnxt_re, hns, siw, pib; perftest 1.x to 25.x):
//
//	res, err := perftest.Parse(stdout)    // text output of one side
//	var tool *perftest.Error
//	if errors.As(err, &tool) {
//		log.Fatalf("%s: %s", tool.Kind, tool.Message) // completion, connect, ...
//	}
//	for _, r := range res.BW {
//		fmt.Printf("%d B: %.2f Gb/s\n", r.Bytes, r.BWAvgGbps)
//	}
//
// Parse reads the header by key (so lines a version, side or verb adds or
// drops do not matter) and splits a line of two pairs at the second key,
// not at the TAB perftest put there: output that went through a terminal
// copy, expand(1), a CI log viewer or a web page has runs of spaces
// instead ("Dual-port : OFF      Device : irdma1"), and a value never
// swallows the next key. It splits rows at any run of blanks (perftest
// mixes spaces and TABs, and the spacing changed in 24.07), reads them by
// the column names of the table header, so that every layout perftest
// printed gives rows (the 5-column latency table of 2.x/3.x, whose
// missing columns are NaN; the BW table of 1.x/2.0 without MsgRate), and
// takes the unit from the table header: "MB/sec" (before 24.07) and "MiB/sec" are both
// 2^20 bytes/s, "Gb/sec" is 10^9 bit/s; every BW value is also given in
// Gb/s (BWAvgGbps) and as printed (Printed). A BW peak printed as 0.00 is
// "not measured" (-D, --run_infinitely, the server of a send test), not
// zero: BWRow.PeakMeasured says which. inf and nan are kept and flagged.
// Everything that is not a row (WARNING lines, "Correlation coefficient",
// "Disabling dynamic polling", -U/-H sample dumps, --report-both
// sections) becomes a Warning, never a row.
//
// The other forms have their own parsers: ParseBare for --output=
// numbers, ParseJSON for --out_json files (the unquoted form before 24.01
// and standard JSON after; the file has no BW unit, which MsgRate ×
// MsgSize, the bandwidth in 10^6 bytes/s, tells), NewStream for rows as they arrive from a
// running --run_infinitely test, ParseVersion for -V, Classify for
// failure messages on either side's stdout or stderr, and ParseOutput for
// the stdout and stderr of one side at once. Detect tells which form an
// input is.
//
// Options hold what both ends share (test, size, iterations, QPs, -F, ...)
// and an End per side (device, IB port, GID index, CPUs, flags of one
// side). One table, Flags, maps each field to its perftest option: it
// builds both command lines, reads them back (ParseCommand, ParsePair:
// stored rounds and fakes match on it) and prints the usage (WriteUsage).
//
// RunPair runs one pair to its end; RunSoak runs a --run_infinitely pair
// for a given time, hands each row to a callback as it arrives (with the
// time its interval ended: an Interim), stops the client with SIGINT and
// keeps everything both sides printed. Interims times the rows of saved
// --run_infinitely output; report.Round.AddPerftestInterims records them
// and report/plot.Interims draws them, so a stall shows:
//
//	sr, err := perftest.RunSoak(ctx, srv, cli, "198.18.0.1",
//		perftest.Options{Test: perftest.WriteBW, Duration: time.Second,
//			Server: perftest.End{Device: "rxe0"}, Client: perftest.End{Device: "rxe1"}}, time.Hour, nil)
//	for _, in := range sr.ClientInterims {
//		fmt.Printf("%6.0fs %.2f Gb/s\n", in.End.Seconds(), in.Row.BWAvgGbps)
//	}
//
// A line that reads as a result row but does not fit the table (too few
// or too many fields, a garbled number, a negative number: perftest
// prints none) becomes a WarnBadRow warning with its line number and a
// *ParseError, and is not a row. A row cut at the end of the input (a
// paste that stops mid-row, or inside its last number: "0." or "2.5525"
// where perftest prints "%.6f") is dropped the same way and makes the
// error ErrTruncated; the rows before it are kept. A row or a table
// header that a terminal or page wrapped (a latency table at 100
// columns) is joined with its rest. Lines that only start with a digit
// (kernel console messages interleaved with the output) are unknown
// lines, not rows.
//
// One output is one test: a second title, server banner, header block or
// table header after the first test's table, or a row after its closing
// dashes (netperf's output pasted under it), ends the result there with
// ErrConcatenated, whose line is where the rest begins; the lines of two
// processes mixed in one terminal are ErrInterleaved (address lines
// whose GID lines come later are read when the GIDs agree). Without a
// title, Result.Test is named from the table header ("BW Test",
// "Latency Test").
//
// Failures become an *Error whose Kind (device not found, connect failed,
// handshake, parameter mismatch, QP transition, completion error,
// check-alive timeout, invalid option, GID index, teardown, ...) callers
// test without comparing strings; it keeps the tool's lines and the rows
// printed before it. Every other parse failure is a *ParseError with the
// line number, wrapping ErrParse, ErrTruncated, ErrUnrecognized,
// ErrConcatenated or ErrInterleaved, and the rows that parsed are kept:
//
//	var pe *perftest.ParseError
//	switch {
//	case errors.As(err, &tool): // what perftest printed
//	case errors.As(err, &pe):   // not a whole result; pe.Line says where
//	}
//
// Result.NoResult is the one check of a result that says nothing (no
// row, no --output number): the parsers' errors then also wrap
// ErrNoResult, and RunPair fails (stage "result") when both sides exit 0
// but one said nothing. No input makes a parser panic, and a nil
// io.Reader is an error.
//
// Read the client: the server of ib_write_bw, ib_read_bw and ib_atomic_bw
// prints the client's numbers (and only the last size with -a), the
// server of ib_read_lat and ib_atomic_lat prints no table, and with -b
// each side prints the sum of both directions.
//
// A Result marshals to the JSON that examples/parse prints: tool, test,
// kind, header {device, qps, connection, mtu, link_type, gid_index}, bw or
// lat rows (bw_peak_gbps, t_avg_us, ...), value, warnings and error
// {kind, message}, with null for inf, nan and unmeasured peaks.
//
// The formats, version by version, are those of
// src/perftest_parameters.{c,h} of linux-rdma/perftest from 4.5 to 26.04;
// testdata/README.md says which cases come from which version.
package perftest
