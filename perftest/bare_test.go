package perftest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBare(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		values []float64
		kinds  []WarningKind
		is     error
		kind   ErrorKind
	}{
		{"one", "6.705108\n", []float64{6.705108}, nil, nil, 0},
		{"warnings first", " WARNING: BW peak won't be measured in this run.\n19.649327\n", []float64{19.649327},
			[]WarningKind{WarnPeakNotMeasured}, nil, 0},
		{"-a, dashes and notes", " Disabling dynamic polling\n Increasing CQE polling batch to 16\n" +
			"---------------------------------------------------------------------------------------\n" +
			"0.021000\n0.042000\ninf\n", []float64{0.021, 0.042, math.Inf(1)},
			[]WarningKind{WarnToolMessage, WarnToolMessage, WarnNonFinite}, nil, 0},
		{"row without newline", " 65536      300              20.48              8.45   \t\t   0.000135",
			nil, []WarningKind{WarnUnknownLine}, ErrTruncated, 0},
		{"failure", "IB device nosuchdev not found\n", nil, nil, ErrToolFailed, KindDeviceNotFound},
		{"nothing", "\n\n", nil, nil, ErrUnrecognized, 0},
		{"other text", "hello world\n", nil, []WarningKind{WarnUnknownLine}, ErrUnrecognized, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseBare(strings.NewReader(tt.in))
			if tt.is == nil && err != nil || !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			var e *Error
			if tt.kind != 0 && (!errors.As(err, &e) || e.Kind != tt.kind) {
				t.Errorf("err = %v, want kind %v", err, tt.kind)
			}
			if d := cmp.Diff(tt.values, res.Values); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
			if len(tt.values) > 0 && res.Value != tt.values[len(tt.values)-1] {
				t.Errorf("Value = %v, want the last", res.Value)
			}
			wantWarnings(t, res, tt.kinds...)
			if res.Kind != ResultBare {
				t.Errorf("kind = %v", res.Kind)
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"Version: 6.06\n": "6.06", "\n  Version: 6.24": "6.24"} {
		got, err := ParseVersion(strings.NewReader(in))
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseVersion(strings.NewReader("Version:\n")); !errors.Is(err, ErrParse) {
		t.Errorf("empty version: err = %v", err)
	}
	if _, err := ParseVersion(strings.NewReader("6.06\n")); !errors.Is(err, ErrUnrecognized) {
		t.Errorf("no Version line: err = %v", err)
	}
}
