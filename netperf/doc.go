// Package netperf reads what netperf 2.7 prints: the classic tables of
// TCP_STREAM, TCP_MAERTS, UDP_STREAM, TCP_RR, UDP_RR and TCP_CRR (with -P 0,
// -v 0, -v 2, -c/-C, -f units, -B brands, the "!!!" confidence block and
// demo-mode interim lines), the omni -k, -o and -O outputs, and netperf's
// failure messages. It replaces the "column 5 of the last line" scripts of
// netperf runbooks:
//
//	netperf -H HOST -t UDP_STREAM -l 30 -- -m 1400 -s 2M -S 2M | tail -2
//
// The parsers are pure: they read an io.Reader and never run netperf.
// Parse detects the form (Detect) and calls ParseClassic, ParseKeyVal,
// ParseCSV or ParseHuman. Every form fills the same summary fields of
// Result, so callers need not care how netperf was asked to print:
//
//   - Throughput and ThroughputMbps: netperf's main figure with its unit,
//     and in 10^6 bit/s whatever -f was (for UDP_STREAM the receive side);
//   - TransPerSec: the transaction rate of request/response tests;
//   - UDP: messages sent and received, send errors and the loss ratio of
//     UDP_STREAM, from the classic two lines or the omni call counts;
//   - Omni: every selector by name, and the common ones typed;
//   - Warnings: inf/nan values, assumed units, confidence not achieved.
//
// netperf prints no unit with -P 0 or -v 0; the parsers then take the
// unit of the demo-mode interim lines when there are any (netperf prints
// both with the same -f), and otherwise assume netperf's default
// (10^6bits/sec for streams, Trans/sec for RR tests), set Rate.Assumed
// and say so in Warnings.
//
// A failure (no netserver, unknown test, bad option, send error, ...)
// comes back as an *Error with a Kind (errors.As), wrapping ErrFailed.
// Truncated or garbled output gives a *ParseError with the line number,
// wrapping ErrParse, beside a Result that keeps what parsed; it also
// wraps ErrTruncated for an output cut before its result, ErrNoResult for
// one that holds no result at all (Run uses the same sentinel), and
// ErrTooLarge past the reading bounds. A decimal comma ("1234,56"), a
// value out of range (1e309) and a negative throughput are garbled, not
// warnings.
//
// Inputs are read line by line: interim results are taken as they come
// (ParseStream hands them to a callback, for -D runs of any length), and
// the rest is bounded (MaxLineBytes, MaxKeptBytes), so no input exhausts
// memory. Terminal escape sequences (colours from a terminal or a CI log)
// are removed with a warning, and a first line that is the command that
// ran netperf ("$ kubectl exec pod -- netperf -H ...") is skipped.
//
// netperf's own pitfalls are handled rather than passed on: UDP_STREAM's
// omni THROUGHPUT is what netserver received while -v 0 prints the send
// side; -f b prints bytes labelled bits; errors go to stdout and a bad
// test-specific option still runs the test (exit 0); -1 means "not
// measured"; -P 0 -o and -O print no headers (name the selectors with
// ParseCSV and ParseHuman). The tests run on outputs captured from netperf
// 2.7.0 and 2.7.1 (testdata/loopback here, ../rocekittest/captures/*/netperf from the
// lab's guests).
//
// Outputs of older netperfs and pasted outputs read the same: the banners
// of netperf before 2.4 ("TCP STREAM TEST to HOST", "UDP UNIDIRECTIONAL
// SEND TEST to HOST", "TCP Connect/Request/Response TEST to HOST"), of
// 2.4 ("... TEST from ... to ...") and of 2.5 on ("MIGRATED ..."); a
// banner a mailer wrapped onto two lines; lines indented by a web page,
// tabs expanded, CRLF line ends, a "^C" echoed before the last interim
// line; -f M with -c/-C ("MBytes  /s"). A line that looks like a result
// row but does not parse is a warning naming its line and is not kept.
// ../testdata/realworld/netperf holds such outputs, found in mailing
// lists, issues, the netperf manual and other projects' test data.
package netperf
