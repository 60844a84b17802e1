// Package bottleneck says what held a measured result back: the question
// both runbooks end on ("where is the bottleneck?"). It holds the result
// against the lowest ceiling of its path (package limits) and against what
// was seen on both hosts while the tool ran — busy cores, socket buffers
// the kernel clamped, drop counters and RDMA retransmissions — and names
// one resource, with every figure it rests on:
//
//	v := bottleneck.Judge(bottleneck.Evidence{
//		Gbps:    23.4,
//		Ceiling: limits.Path{LinkMbps: 25000}.Ceiling(limits.IPStream{MTU: 9000}),
//	}, bottleneck.Thresholds{})
//	fmt.Println(v) // link: 23.4 Gbit/s is 94 % of the 24.8 Gbit/s link ceiling (25000 Mb/s × 99.27 % ...)
//
// The order of the rules is the runbooks' own reasoning:
//
//  1. At or above Thresholds.NearCeiling (90 %) of the lowest ceiling the
//     result is bound by that limit: the link, or the PCIe link when it is
//     the lower one.
//  2. Below it, a core at or above Thresholds.BusyCore (90 %) in softirq,
//     irq and system time together on either host is the bottleneck
//     (soft-RoCE's usual answer: rdma_rxe works in softirq on 6.1 and in
//     a workqueue, system time, on 6.12). The verdict names the host, the
//     core, the split, the threads seen there when known (report.HostLoad
//     takes them from irq.ThreadSnapshot.Sub), and whether the core is
//     local to the NIC's NUMA node. When no core reaches it, a kernel
//     thread (rxe_wq's worker, ksoftirqd) whose system time reaches it of
//     one core is the bottleneck: each of a QP's tasks (requester,
//     responder, completer) runs on one worker at a time, which the
//     scheduler moves between cores (seen in the lab on 6.12: no core
//     above 36 %, the worker at one core's full share; with more real
//     cores the tasks spread over workers and none need saturate). Else
//     a core in use at BusyCore with user time counted, at least half of
//     it the kernel's, is one: on 6.1 rdma_rxe does a send's work inside
//     the tool's own calls, and the tool's polling fills the rest (the
//     lab's pair: one core 87 % system).
//  3. Else a socket buffer the kernel clamped below the request.
//  4. Else loss: drop counters that rose, or RDMA retransmissions.
//  5. Else none found: "reached X % of Y; no counter or core explains the
//     rest" — or, when no ceiling is known, only what was seen.
//
// Causes found after the first are kept in Also (a clamp and loss often
// come together), and a PCIe link below its maximum is a Note whatever
// binds. Nothing is guessed: a figure that is unknown (virtio reports no
// link speed; rdma_rxe's port rate means nothing) is listed in Unknown.
package bottleneck
