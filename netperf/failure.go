package netperf

import "strings"

// failurePatterns are the texts netperf 2.7 prints (on stdout or stderr)
// when a run fails, in the order they are tried.
var failurePatterns = []struct {
	text string
	kind Kind
}{
	{"are you sure there is a netserver listening", KindNoServer},
	{"establish_control could not establish the control connection", KindNoServer},
	{"establish_control: connect failed", KindNoServer},
	{"is unknown to this netperf", KindUnknownTest},
	{"invalid option -- ", KindBadOption},
	{"option requires an argument -- ", KindBadOption},
	{"unrecognized option", KindBadOption},
	{"Usage: netperf ", KindBadOption},
	{"confidence level is supported", KindBadOption},
	{"Could not open output selection file", KindBadOption},
	{"Could not open requested fill file", KindBadOption},
	// TCP_SENDFILE with a -F file smaller than the send ring (2.4).
	{"specified file too small", KindBadOption},
	{"No default port known for the", KindBadOption},
	{"family mismatch", KindBadOption},
	{"could not resolve", KindResolve},
	{"connect_data_socket failed", KindDataConnect},
	{"data socket connect failed", KindDataConnect},
	{"unable to create data socket", KindDataConnect},
	{"could not create data socket", KindDataConnect},
	{"data send error", KindDataSend},
	{"send_data failed", KindDataSend},
	{"data recv error", KindDataRecv},
	{"recv_data failed", KindDataRecv},
	{"partial response received", KindControlLost},
	{"no response received", KindTimeout},
	// perror("recv_response") when netserver's end of the control
	// connection was reset: "recv_response: Connection reset by peer".
	{"recv_response: ", KindControlLost},
	{"netperf: remote error", KindRemote},
}

// classifyFailure returns the kind of failure a line reports, and false
// for lines that report none. Other lines starting "netperf: " (netperf's
// perror prefix) are KindUnknown.
func classifyFailure(s string) (Kind, bool) {
	for _, p := range failurePatterns {
		if strings.Contains(s, p.text) {
			return p.kind, true
		}
	}
	if strings.HasPrefix(s, "netperf: ") {
		return KindUnknown, true
	}
	return "", false
}

// maxFailureLine bounds the lines searched for failure texts.
const maxFailureLine = 512

// classifyFailureLine is classifyFailure for a line of output. It skips
// the lines netperf's messages never look like, so that long tables are
// not searched 25 times a line: data lines (the messages never start with
// a number), lines over 512 bytes, and padded columns (three spaces in a
// row: classic titles, -O rows; the messages are prose).
func classifyFailureLine(s string) (Kind, bool) {
	if len(s) > maxFailureLine || strings.Contains(s, "   ") || isNumber(firstWord(s)) {
		return "", false
	}
	return classifyFailure(s)
}
