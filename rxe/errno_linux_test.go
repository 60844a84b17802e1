package rxe

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClassify maps the kernel's NEWLINK/DELLINK errnos (seen in the lab,
// see TestLabLinkErrors) to the sentinel kinds, keeping the errno.
func TestClassify(t *testing.T) {
	tests := []struct {
		op   string
		err  error
		kind error
	}{
		{"open", unix.EPROTONOSUPPORT, ErrNoRDMA},
		{opAdd, unix.EPROTONOSUPPORT, ErrNoRDMA},
		{opAdd, unix.ENODEV, ErrNetdevNotFound},
		{opAdd, unix.EEXIST, ErrLinkExists},
		{opAdd, unix.ENFILE, ErrLinkExists},
		{opAdd, fmt.Errorf("wrapped: %w", unix.EINVAL), ErrModuleMissing},
		{opDelete, unix.EINVAL, ErrNotSoftLink},
		{opDelete, unix.ENODEV, nil},
		{opAdd, unix.EBUSY, nil},
		{opAdd, unix.EOPNOTSUPP, ErrLinkAddUnsupported},
	}
	if os.Geteuid() == 0 {
		tests = append(tests, struct {
			op   string
			err  error
			kind error
		}{opAdd, unix.EPERM, ErrNetdevUnusable})
	}
	for _, tt := range tests {
		err := classify(tt.op, "rxe0", "eth0", tt.err)
		var e *Error
		if !errors.As(err, &e) || e.Kind != tt.kind || !errors.Is(err, tt.err) {
			t.Errorf("classify(%s, %v) = %v (kind %v), want kind %v", tt.op, tt.err, err, e.Kind, tt.kind)
		}
		if tt.kind != nil && !errors.Is(err, tt.kind) {
			t.Errorf("classify(%s, %v): errors.Is(kind) false", tt.op, tt.err)
		}
	}
	// The refusals say what to do instead.
	var ue *Error
	errors.As(classify(opAdd, "rxe0", "eth0.100", unix.EOPNOTSUPP), &ue)
	if !strings.Contains(ue.Diagnosis, "echo eth0.100 > /sys/module/rdma_rxe/parameters/add") {
		t.Errorf("EOPNOTSUPP diagnosis %q", ue.Diagnosis)
	}
	if os.Geteuid() == 0 {
		errors.As(classify(opAdd, "rxe0", "eth0.100", unix.EPERM), &ue)
		if !strings.Contains(ue.Diagnosis, "ip link add mv0 link eth0.100 type macvlan mode bridge") {
			t.Errorf("VLAN diagnosis %q", ue.Diagnosis)
		}
	}
	// EINVAL on add comes with a diagnosis of the live system's module.
	var e *Error
	errors.As(classify(opAdd, "rxe0", "eth0", unix.EINVAL), &e)
	if st, err := (Root{}).RXEModule(); err == nil && st.Usable() != (e.Diagnosis == "") {
		t.Errorf("EINVAL diagnosis %q for module status %+v", e.Diagnosis, st)
	}
}
