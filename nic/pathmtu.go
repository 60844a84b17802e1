package nic

import (
	"fmt"
	"strings"
)

// IB MTU values a RoCE path can use, in bytes (enum ib_mtu).
var ibMTUs = []int{4096, 2048, 1024, 512, 256}

// Header bytes the kernel takes off the netdev MTU before choosing the RoCE
// path MTU.
const (
	// RoCEHeaderBytes is iboe_get_mtu()'s allowance for hardware RoCE
	// (include/rdma/ib_addr.h): GRH 40 + UDP 8 + BTH 12 + XRC 4 +
	// AtomicETH 28 + ICRC 4.
	RoCEHeaderBytes = 96
	// RXEHeaderBytes is rdma_rxe's RXE_MAX_HDR_LENGTH
	// (drivers/infiniband/sw/rxe/rxe_param.h).
	RXEHeaderBytes = 80
)

func pathMTU(netdevMTU, headers int) int {
	for _, m := range ibMTUs {
		if netdevMTU-headers >= m {
			return m
		}
	}
	return 0
}

// RoCEPathMTU returns the active RoCE MTU, in bytes, that hardware RoCE
// (mlx5, irdma, bnxt_re, ...) derives from a netdev MTU: the largest IB MTU
// (256-4096) that fits after 96 header bytes. 1500 → 1024, 4192 and above
// → 4096 (9000 gives 4096 too: jumbo frames above 4192 buy RoCE nothing).
// 0 means the netdev MTU is too small for RoCE.
func RoCEPathMTU(netdevMTU int) int { return pathMTU(netdevMTU, RoCEHeaderBytes) }

// RXEPathMTU returns the active MTU soft-RoCE (rdma_rxe) derives from its
// netdev's MTU: the largest IB MTU that fits after 80 header bytes, at
// least 256. Measured in the lab with ibv_devinfo (nic/testdata):
// 1103 → 512, 1104 → 1024, 1500 → 1024, 4175 → 2048, 4176 → 4096.
func RXEPathMTU(netdevMTU int) int { return max(pathMTU(netdevMTU, RXEHeaderBytes), 256) }

// PathMTUError says that the MTU perftest printed in its header
// (" Mtu : 1024[B]") is not what the two netdevs' MTUs give.
type PathMTUError struct {
	ReportedBytes int   // from perftest
	ExpectedBytes int   // the minimum of the ends' path MTUs
	PathMTUs      []int // per end, as passed to CheckPerftestMTU
}

// Error gives the reported and the expected MTU.
func (e *PathMTUError) Error() string {
	var ends []string
	for _, m := range e.PathMTUs {
		ends = append(ends, fmt.Sprint(m))
	}
	return fmt.Sprintf("nic: perftest reported MTU %d, the ends' path MTUs (%s) give %d",
		e.ReportedBytes, strings.Join(ends, ", "), e.ExpectedBytes)
}

// Is matches ErrPathMTU.
func (e *PathMTUError) Is(target error) bool { return target == ErrPathMTU }

// CheckPerftestMTU compares the MTU perftest reports in its header with the
// path MTU of each end (RoCEPathMTU or RXEPathMTU of its netdev MTU).
// perftest exchanges the ends' active MTUs and uses the smaller one, so that
// is what it must print; a difference means an MTU change did not reach
// both ends (or an rxe device was created before the change and missed
// it).
func CheckPerftestMTU(reportedBytes int, pathMTUs ...int) error {
	if len(pathMTUs) == 0 {
		return fmt.Errorf("nic: CheckPerftestMTU needs at least one path MTU")
	}
	want := pathMTUs[0]
	for _, m := range pathMTUs[1:] {
		want = min(want, m)
	}
	if reportedBytes != want {
		return &PathMTUError{ReportedBytes: reportedBytes, ExpectedBytes: want, PathMTUs: pathMTUs}
	}
	return nil
}
