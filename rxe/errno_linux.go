package rxe

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// classify turns a netlink error into an *Error with a sentinel Kind.
// Kernel errnos of NEWLINK and DELLINK (drivers/infiniband/core/nldev.c,
// sw/rxe/rxe.c), seen in the lab on kernels 6.1 and 6.12:
//
//	EPROTONOSUPPORT  no RDMA netlink in the kernel
//	ENODEV           netdev not in the socket's namespace
//	EEXIST           the netdev already carries an rxe link
//	ENFILE           the link name is taken ("rxe_register_device failed with error -23")
//	EINVAL           add: no such link type (module missing); delete: not a soft link
//	EPERM            add as root: rxe refused on a VLAN netdev
func classify(op, name, netdev string, err error) error {
	e := &Error{Op: op, Name: name, Netdev: netdev, Err: err}
	switch {
	case errors.Is(err, unix.EPROTONOSUPPORT):
		e.Kind = ErrNoRDMA
	case errors.Is(err, unix.EEXIST), errors.Is(err, unix.ENFILE):
		e.Kind = ErrLinkExists
	case op == opAdd && errors.Is(err, unix.ENODEV):
		e.Kind = ErrNetdevNotFound
	case op == opAdd && errors.Is(err, unix.EINVAL):
		e.Kind = ErrModuleMissing
		if st, serr := (Root{}).RXEModule(); serr == nil {
			e.Diagnosis = st.Diagnosis()
		}
	case op == opAdd && errors.Is(err, unix.EPERM) && os.Geteuid() == 0:
		e.Kind = ErrNetdevUnusable
	case op == opDelete && errors.Is(err, unix.EINVAL):
		e.Kind = ErrNotSoftLink
	}
	return e
}

const (
	opAdd    = "link add"
	opDelete = "link delete"
)
