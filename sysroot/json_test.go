package sysroot

import (
	"encoding/json"
	"errors"
	"testing"
	"testing/fstest"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, c := range []struct {
		r    Root
		want string
	}{
		{Host, `{}`},
		{Dir("/t"), `{"dir":"/t"}`},
		{ProcSys("/f/proc", "/f/sys"), `{"proc":"/f/proc","sys":"/f/sys"}`},
		{ProcSys("", "/f/sys"), `{"sys":"/f/sys"}`},
	} {
		b, err := json.Marshal(c.r)
		if err != nil || string(b) != c.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", c.r, b, err, c.want)
			continue
		}
		var back Root
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(c.r) {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, c.r)
		}
	}
	if _, err := json.Marshal(FromFS(fstest.MapFS{})); !errors.Is(err, ErrFS) {
		t.Errorf("Marshal(FromFS) = %v; want ErrFS", err)
	}
	if r := Dir("/x"); json.Unmarshal([]byte(`null`), &r) != nil || r != Dir("/x") {
		t.Errorf("Unmarshal(null) changed the Root to %v", r)
	}
	for _, in := range []string{`{}`, `{"proc":"/proc"}`} {
		r := Dir("/x")
		if err := json.Unmarshal([]byte(in), &r); err != nil || !r.IsHost() {
			t.Errorf("Unmarshal(%s) = %v, %v; want host", in, r, err)
		}
	}
	var r Root
	if err := json.Unmarshal([]byte(`{"dir":7}`), &r); err == nil {
		t.Error("Unmarshal of a number as dir: no error")
	}
}
