package didyoumean

import (
	"errors"
	"testing"
)

func TestNearest(t *testing.T) {
	ops := []string{"prepare-rxe", "set-mtu", "netdev", "counters", "port-counters", "restore", "restore-since"}
	for _, c := range []struct{ in, want string }{
		{"set-mut", "set-mtu"},  // a transposition: 2 edits
		{"restor", "restore"},   // one missing
		{"counter", "counters"}, // nearer than port-counters
		{"format-disk", ""},     // nothing near
		{"", ""},                // nothing asked
		{"netdev", "netdev"},    // itself
		{"prepare_rxe", "prepare-rxe"},
	} {
		if got := Nearest(c.in, ops); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Suffix("set-mut", ops); got != ` (did you mean "set-mtu"?)` {
		t.Errorf("Suffix = %q", got)
	}
	if got := Suffix("netdev", ops); got != "" {
		t.Errorf("Suffix of a known name = %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"bw_avg", "bw_avg", 0}, {"bw_avg", "bw_agv", 2}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := Distance(c.a, c.b); got != c.want || Distance(c.b, c.a) != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("bw_avg", "bw_peak")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b)
		if d != Distance(b, a) || d > max(len(a), len(b)) || (d == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}

func TestCheck(t *testing.T) {
	rounds := []string{"A", "S", "B", "C", "V"}
	if err := Check("-rounds value", "B", rounds); err != nil {
		t.Errorf("a known value: %v", err)
	}
	err := Check("-test value", "send_bw", []string{"send-bw", "write-bw", "read-bw"})
	if err == nil || err.Error() != `unknown -test value "send_bw" (did you mean "send-bw"?); known: send-bw, write-bw, read-bw` {
		t.Errorf("Check = %v", err)
	}
	var ue *UnknownError
	if e := Check("-rounds value", "Q", rounds); !errors.As(e, &ue) || ue.Name != "Q" || len(ue.Known) != 5 {
		t.Errorf("Check(Q) = %#v", e)
	}
}
