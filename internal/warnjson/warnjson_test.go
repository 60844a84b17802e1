package warnjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

type line struct{ N int }

func (l line) Error() string { return fmt.Sprintf("line %d: bad", l.N) }

func TestRoundTrip(t *testing.T) {
	type doc struct {
		Warnings Errors `json:"warnings,omitempty"`
	}
	in := doc{Warnings: Errors{line{3}, fmt.Errorf("ring: %w", fs.ErrPermission), nil}}
	var l line
	if !errors.As(in.Warnings[0], &l) || l.N != 3 {
		t.Fatalf("errors.As on a warning: %v", l)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"warnings":["line 3: bad","ring: permission denied","\u003cnil\u003e"]}`; string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Warnings) != 3 || out.Warnings[1].Error() != "ring: permission denied" {
		t.Fatalf("decoded %q", Strings(out.Warnings))
	}
	for _, c := range []struct {
		v    doc
		want string
	}{{doc{}, `{}`}, {doc{Warnings: Errors{}}, `{}`}} {
		if b, _ := json.Marshal(c.v); string(b) != c.want {
			t.Errorf("%#v: got %s, want %s", c.v, b, c.want)
		}
	}
	if b, _ := json.Marshal(Errors{}); string(b) != `[]` {
		t.Errorf("empty: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"warnings":null}`), &out); err != nil || out.Warnings != nil {
		t.Errorf("null: %v %v", out.Warnings, err)
	}
	if err := json.Unmarshal([]byte(`{"warnings":[1]}`), &out); err == nil {
		t.Error("a number decoded as a warning")
	}
}
