package perftest

import (
	"bytes"
	"strings"
)

// Form is what kind of perftest output an input is, as Detect tells it.
type Form int

// The forms.
const (
	// FormUnknown: nothing perftest prints.
	FormUnknown Form = iota
	// FormTextBW: the text output of a BW test (Parse).
	FormTextBW
	// FormTextLat: the text output of a latency test (Parse).
	FormTextLat
	// FormTextLatDuration: the text output of a latency test with -D
	// (Parse).
	FormTextLatDuration
	// FormBare: --output=bandwidth|message_rate|latency numbers
	// (ParseBare).
	FormBare
	// FormJSON: a --out_json file, standard or pre-24.01 (ParseJSON).
	FormJSON
	// FormError: only failure messages, as on stderr (Classify).
	FormError
	// FormVersion: the "Version: 6.06" line of -V (ParseVersion).
	FormVersion
)

var formNames = [...]string{
	FormUnknown:         "unknown",
	FormTextBW:          "text_bw",
	FormTextLat:         "text_lat",
	FormTextLatDuration: "text_lat_duration",
	FormBare:            "bare",
	FormJSON:            "json",
	FormError:           "error",
	FormVersion:         "version",
}

// String returns "text_bw", "text_lat", "text_lat_duration", "bare", "json",
// "error", "version" or "unknown".
func (f Form) String() string {
	if f < 0 || int(f) >= len(formNames) {
		return "unknown"
	}
	return formNames[f]
}

// Detect tells what form of perftest output data is, so that a caller can
// pick the parser: Parse for the text forms, ParseBare, ParseJSON, Classify
// or ParseVersion. A text output that also holds failure messages is a
// text form (Parse returns its rows and the *Error).
//
// A lone number is FormBare only as perftest's "%lf" prints it (six
// decimals, inf or nan) and not negative, so that other tools' single
// numbers are not taken for perftest's.
func Detect(data []byte) Form {
	var title Form
	bare, other := false, false
	failed := false
	version := false
	first := true
	for rest := data; len(rest) > 0; {
		var line []byte
		line, rest = nextLine(rest)
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if first {
			first = false
			if t[0] == '{' && (bytes.Contains(data, []byte("test_info")) || bytes.Contains(data, []byte("results"))) {
				return FormJSON
			}
		}
		if isTableHeader(t) {
			l := parseLayout(string(t))
			switch l.kind() {
			case tableLat:
				return FormTextLat
			case tableLatDur:
				return FormTextLatDuration
			case tableBW:
				return FormTextBW
			}
		}
		switch {
		case isDashes(t):
			continue
		case isBareValue(t):
			bare = true
			continue
		case bytes.HasPrefix(t, []byte("Version: ")):
			version = true
			continue
		}
		s := string(t)
		if title == FormUnknown && !strings.Contains(s, ":") {
			var h Header
			switch kind, _ := h.setTitle(s); kind {
			case ResultBW:
				title = FormTextBW
			case ResultLat:
				title = FormTextLat
			}
		}
		if kind, _ := classifyLine(s); kind != KindUnknown {
			failed = true
			continue
		}
		if classifyNoise(s) == classOther {
			other = true
		}
	}
	switch {
	case title != FormUnknown:
		return title
	case bare && !other:
		return FormBare
	case failed:
		return FormError
	case version && !other:
		return FormVersion
	}
	return FormUnknown
}
