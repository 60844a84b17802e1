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
//	EOPNOTSUPP       add: no NEWLINK in this kernel's nldev (before 5.1; from the
//	                 kernel's history, not seen here: both lab kernels have it)
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
		e.Diagnosis = vlanRemedy(netdev)
	case op == opAdd && errors.Is(err, unix.EOPNOTSUPP):
		e.Kind = ErrLinkAddUnsupported
		e.Diagnosis = "this kernel's RDMA netlink has no link add (it came in Linux 5.1); on older kernels add the link with: echo " +
			netdev + " > /sys/module/rdma_rxe/parameters/add (what rxe_cfg add " + netdev + " did)"
	case op == opDelete && errors.Is(err, unix.EINVAL):
		e.Kind = ErrNotSoftLink
	}
	return e
}

const (
	opAdd    = "link add"
	opDelete = "link delete"
)

// vlanRemedy is the way around rdma_rxe's refusal of a VLAN netdev, tried
// in the lab (trixie, 6.12: "rdma link add rxe0 type rxe netdev eth0.100"
// fails with "Operation not permitted"; on a macvlan over eth0.100 the
// link comes up ACTIVE/LINK_UP). Not tried on 6.1.
func vlanRemedy(netdev string) string {
	return "rdma_rxe refuses VLAN netdevs; put the link on a macvlan over it: ip link add mv0 link " + netdev +
		" type macvlan mode bridge && ip link set mv0 up && rdma link add rxe0 type rxe netdev mv0 (give mv0 the address the VLAN had)"
}
