package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestOneOf: a typo of an enumerated value names the one likely meant,
// a value far from all of them only the list.
func TestOneOf(t *testing.T) {
	for _, tc := range []struct {
		v, want string
	}{
		{"perftest", ""},
		{"perftset", `-tool "perftset": want one of perftest, netperf (did you mean "perftest"?)`},
		{"netprf", `-tool "netprf": want one of perftest, netperf (did you mean "netperf"?)`},
		{"iperf3", `-tool "iperf3": want one of perftest, netperf`},
	} {
		err := OneOf("-tool", tc.v, "perftest", "netperf")
		if got := errString(err); got != tc.want {
			t.Errorf("OneOf(%q) = %s, want %s", tc.v, got, tc.want)
		}
		if err != nil && !errors.Is(err, ErrBadFlag) {
			t.Errorf("OneOf(%q): %v does not match ErrBadFlag", tc.v, err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func testFlags(out *bytes.Buffer) *flag.FlagSet {
	fs := flag.NewFlagSet("example", flag.ExitOnError)
	fs.SetOutput(out)
	var f Flags
	f.Register(fs)
	fs.Int("count", 5, "runs")
	return fs
}

// TestParseFlagsUnknown: an unknown flag, with one or two dashes or a
// value, says which flag was likely meant, returns (not exits, although
// the set exits on errors) and prints nothing; the set keeps its error
// handling and output.
func TestParseFlagsUnknown(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-netdve", "eth0"}, "flag provided but not defined: -netdve (did you mean -netdev?)"},
		{[]string{"--peer-netn=x"}, "flag provided but not defined: -peer-netn (did you mean -peer-netns?)"},
		{[]string{"-count", "2", "-jornal", "j"}, "flag provided but not defined: -jornal (did you mean -journal?)"},
		{[]string{"-qqqqqqqq"}, "flag provided but not defined: -qqqqqqqq"},
	} {
		var out bytes.Buffer
		fs := testFlags(&out)
		err := ParseFlags(fs, tc.args)
		if errString(err) != tc.want || !errors.Is(err, ErrBadFlag) {
			t.Errorf("%q: %v, want %s", tc.args, err, tc.want)
		}
		if out.Len() != 0 || fs.ErrorHandling() != flag.ExitOnError || fs.Output() != &out {
			t.Errorf("%q: printed %q, error handling %v", tc.args, out.String(), fs.ErrorHandling())
		}
	}
}

// TestParseFlagsValuesAndHelp: good flags parse; a bad value is the
// flag package's message, matching ErrBadFlag; -h prints the usage and
// returns flag.ErrHelp.
func TestParseFlagsValuesAndHelp(t *testing.T) {
	var out bytes.Buffer
	fs := testFlags(&out)
	if err := ParseFlags(fs, []string{"-netdev", "eth1", "-count", "3"}); err != nil || fs.Lookup("netdev").Value.String() != "eth1" {
		t.Fatalf("good flags: %v", err)
	}
	err := ParseFlags(testFlags(&out), []string{"-count", "many"})
	if err == nil || !errors.Is(err, ErrBadFlag) || !strings.Contains(err.Error(), `invalid value "many" for flag -count`) {
		t.Errorf("bad value: %v", err)
	}
	out.Reset()
	err = ParseFlags(testFlags(&out), []string{"-h"})
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "Usage of example:") || !strings.Contains(out.String(), "-netdev") {
		t.Errorf("-h: %v, printed %q", err, out.String())
	}
}
