package sysroot

import (
	"encoding/json"
	"errors"
)

// ErrFS is returned when a Root on an fs.FS is marshaled: an fs.FS has no
// form in JSON.
var ErrFS = errors.New("sysroot: a root on an fs.FS cannot be marshaled")

// rootJSON is a Root's JSON form: the folders it reads in place of "/",
// /proc and /sys; {} is the host.
type rootJSON struct {
	Dir  string `json:"dir,omitempty"`
	Proc string `json:"proc,omitempty"`
	Sys  string `json:"sys,omitempty"`
}

// Equal reports whether both Roots read the same tree (r == o). go-cmp
// uses it, so structs that hold a Root compare without options.
func (r Root) Equal(o Root) bool { return r == o }

// MarshalJSON gives {"dir":…,"proc":…,"sys":…} without the empty ones,
// so that a Root crosses a process boundary (a journal, a test's child
// process). A Root on an fs.FS fails with ErrFS.
func (r Root) MarshalJSON() ([]byte, error) {
	if r.fsys != nil {
		return nil, ErrFS
	}
	return json.Marshal(rootJSON{Dir: r.dir, Proc: r.proc, Sys: r.sys})
}

// UnmarshalJSON reads what MarshalJSON wrote; {} is the host, and null
// leaves r as it is (the encoding/json convention).
func (r *Root) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var j rootJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := ProcSys(j.Proc, j.Sys)
	if j.Dir != "" {
		out.dir = Dir(j.Dir).dir
	}
	*r = out
	return nil
}
