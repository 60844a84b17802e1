package fleet

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSchedule(t *testing.T) {
	names := []string{"a", "b-1", "b", "1-c"}
	for _, c := range []struct {
		spec    string
		perHost int
		want    string // the rounds, "0-1 2-3; 0-2"
		wantErr string
	}{
		{spec: "all", perHost: 1, want: "0-3 1-2; 0-2 1-3; 0-1 2-3"},
		{spec: "ring", perHost: 2, want: "0-1 1-2 2-3 0-3"},
		{spec: "a-b,b-1-1-c,b-1-b", perHost: 1, want: "0-2 1-3; 1-2"},
		{spec: "rign", perHost: 1, wantErr: `"rign": "rign" is not HOST-HOST of the host names (did you mean "ring"?)`},
		{spec: "a-b,a-x", perHost: 1, wantErr: `"a-x" is not HOST-HOST of the host names`},
		{spec: "a-b,b-a", perHost: 1, wantErr: "given twice"},
		{spec: "a-a", perHost: 1, wantErr: "pairs a host with itself"},
		{spec: "all", perHost: 0, wantErr: "per-host limit 0"},
	} {
		s, err := ParseSchedule(c.spec, names, c.perHost)
		if c.wantErr != "" {
			if !errors.Is(err, ErrInvalidSchedule) || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: %v, want %q", c.spec, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		var rounds []string
		for _, r := range s.Rounds {
			var ps []string
			for _, p := range r {
				ps = append(ps, p.String())
			}
			rounds = append(rounds, strings.Join(ps, " "))
		}
		if got := strings.Join(rounds, "; "); got != c.want || s.Hosts != len(names) {
			t.Errorf("%q: %s (%d hosts), want %s", c.spec, got, s.Hosts, c.want)
		}
	}
}

// FuzzParseSchedule: a schedule that parses is valid for its hosts and
// per-host limit; any other wraps ErrInvalidSchedule.
func FuzzParseSchedule(f *testing.F) {
	f.Add("all", "a,b,c", 1)
	f.Add("ring", "a,b", 2)
	f.Add("a-b,b-c-d", "a,b,c-d", 1)
	f.Add("a--b,-", "a,-b,", 1)
	f.Fuzz(func(t *testing.T, spec, hosts string, perHost int) {
		names := strings.Split(hosts, ",")
		if len(names) > 64 {
			return // AllPairs of many hosts is slow, not wrong
		}
		s, err := ParseSchedule(spec, names, perHost)
		if err != nil {
			if !errors.Is(err, ErrInvalidSchedule) {
				t.Fatalf("%q of %q: %v does not wrap ErrInvalidSchedule", spec, names, err)
			}
			return
		}
		if s.Hosts != len(names) {
			t.Fatalf("%q: schedule of %d hosts for %d names", spec, s.Hosts, len(names))
		}
		if err := s.Check(perHost); err != nil {
			t.Fatalf("%q of %q, per host %d: %v", spec, names, perHost, err)
		}
	})
}
