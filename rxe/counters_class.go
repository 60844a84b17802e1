package rxe

import (
	"strings"

	"github.com/rocekit/rocekit/internal/counterword"
)

// CounterClass says what an RDMA port counter counts.
type CounterClass string

// Counter classes. Retransmission, Congestion and Error are the ones whose
// growth during a run costs performance or data (see
// PortCountersDelta.Problems).
const (
	// ClassOther: neither traffic nor a problem (mlx5 rx_dct_connect,
	// rdma_rxe ack_deferred).
	ClassOther CounterClass = ""
	// ClassTraffic: packets, words or operations moved (rdma_rxe sent_pkts,
	// rcvd_pkts, rdma_sends; mlx5 rx_write_requests; PMA port_xmit_data).
	ClassTraffic CounterClass = "traffic"
	// ClassRetransmission: the transport recovered from a loss, a
	// sequence error or a receiver not ready, at the cost of a retry
	// (rdma_rxe duplicate_request, out_of_seq_request, rcvd_seq_err,
	// retry_exceeded_err, rcvd_rnr_err, completer_retry_err; mlx5
	// out_of_sequence, packet_seq_err, local_ack_timeout_err,
	// implied_nak_seq_err, rnr_nak_retry_err, out_of_buffer).
	ClassRetransmission CounterClass = "retransmission"
	// ClassCongestion: ECN marks and congestion notification packets
	// (mlx5 np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets,
	// rp_cnp_ignored; PMA port_xmit_wait).
	ClassCongestion CounterClass = "congestion"
	// ClassError: errors and discards (rdma_rxe send_err, link_downed;
	// mlx5 req_cqe_error; PMA port_rcv_errors, port_xmit_discards,
	// symbol_error).
	ClassError CounterClass = "error"
)

// knownCounterClasses holds the counters of rdma_rxe
// (drivers/infiniband/sw/rxe/rxe_hw_counters.c: the same 15 names in
// kernels 6.1 and 6.12), mlx5 (drivers/infiniband/hw/mlx5/counters.c, also
// under a "vport_" prefix in switchdev mode) and the PMA (counters/).
// Other names are classified by their words.
var knownCounterClasses = map[string]CounterClass{
	// rdma_rxe
	"sent_pkts": ClassTraffic, "rcvd_pkts": ClassTraffic,
	"rdma_sends": ClassTraffic, "rdma_recvs": ClassTraffic,
	"duplicate_request": ClassRetransmission, "out_of_seq_request": ClassRetransmission,
	"rcvd_rnr_err": ClassRetransmission, "send_rnr_err": ClassRetransmission,
	"rcvd_seq_err": ClassRetransmission,
	// ack_deferred counts work handed to a tasklet or work queue
	// (RXE_CNT_COMPLETER_SCHED in 6.1, RXE_CNT_SENDER_SCHED in 6.12): in the
	// lab it grows by one per message of a healthy ib_send_bw on 6.12.
	"ack_deferred":       ClassOther,
	"retry_exceeded_err": ClassRetransmission, "retry_rnr_exceeded_err": ClassRetransmission,
	"completer_retry_err": ClassRetransmission,
	"send_err":            ClassError, "link_downed": ClassError,
	// mlx5 queue counters
	"rx_write_requests": ClassTraffic, "rx_read_requests": ClassTraffic,
	"rx_atomic_requests": ClassTraffic, "rx_dct_connect": ClassOther,
	"out_of_buffer": ClassRetransmission, "out_of_sequence": ClassRetransmission,
	"rnr_nak_retry_err": ClassRetransmission, "packet_seq_err": ClassRetransmission,
	"implied_nak_seq_err": ClassRetransmission, "local_ack_timeout_err": ClassRetransmission,
	"req_transport_retries_exceeded": ClassRetransmission, "req_rnr_retries_exceeded": ClassRetransmission,
	"roce_adp_retrans": ClassRetransmission, "roce_adp_retrans_to": ClassRetransmission,
	"roce_slow_restart": ClassRetransmission, "roce_slow_restart_trans": ClassRetransmission,
	"roce_slow_restart_cnps":  ClassCongestion,
	"resp_local_length_error": ClassError, "resp_cqe_error": ClassError, "req_cqe_error": ClassError,
	"req_remote_invalid_request": ClassError, "req_remote_access_errors": ClassError,
	"resp_remote_access_errors": ClassError, "resp_cqe_flush_error": ClassError,
	"req_cqe_flush_error": ClassError, "rx_icrc_encapsulated": ClassError,
	// mlx5 congestion and optional counters
	"rp_cnp_ignored": ClassCongestion, "rp_cnp_handled": ClassCongestion,
	"np_ecn_marked_roce_packets": ClassCongestion, "np_cnp_sent": ClassCongestion,
	"cc_rx_ce_pkts": ClassCongestion, "cc_rx_cnp_pkts": ClassCongestion, "cc_tx_cnp_pkts": ClassCongestion,
	"rdma_tx_packets": ClassTraffic, "rdma_tx_bytes": ClassTraffic,
	"rdma_rx_packets": ClassTraffic, "rdma_rx_bytes": ClassTraffic,
	// PMA (counters/)
	"port_xmit_data": ClassTraffic, "port_rcv_data": ClassTraffic,
	"port_xmit_packets": ClassTraffic, "port_rcv_packets": ClassTraffic,
	"unicast_xmit_packets": ClassTraffic, "unicast_rcv_packets": ClassTraffic,
	"multicast_xmit_packets": ClassTraffic, "multicast_rcv_packets": ClassTraffic,
	"port_xmit_wait": ClassCongestion,
	"symbol_error":   ClassError, "link_error_recovery": ClassError,
	"port_rcv_errors": ClassError, "port_rcv_remote_physical_errors": ClassError,
	"port_rcv_switch_relay_errors": ClassError, "port_xmit_discards": ClassError,
	"port_xmit_constraint_errors": ClassError, "port_rcv_constraint_errors": ClassError,
	"local_link_integrity_errors": ClassError, "excessive_buffer_overrun_errors": ClassError,
	"VL15_dropped": ClassError,
}

// ClassifyCounter classifies an RDMA port counter by name: the names of
// rdma_rxe, mlx5 and the PMA from a table, others (irdma, bnxt_re, hfi1,
// ...) by their words: cnp/ecn are congestion; retry, retrans, resend,
// seq, dup, nak, rnr, oos, timeout are retransmission; err, discard, drop,
// downed, invalid, overrun are error; pkts, packets, octets, bytes, data,
// requests are traffic.
func ClassifyCounter(name string) CounterClass {
	if c, ok := knownCounterClasses[strings.TrimPrefix(name, "vport_")]; ok {
		return c
	}
	has := func(prefixes ...string) bool {
		for _, w := range counterWords(name) {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
		}
		return false
	}
	lower := strings.ToLower(name)
	switch {
	case has("cnp", "ecn", "congest"):
		return ClassCongestion
	case has("retr", "retx", "resend", "seq", "dup", "nak", "rnr", "oos"),
		strings.Contains(lower, "timeout"), strings.Contains(lower, "timedout"):
		return ClassRetransmission
	case has("err", "discard", "drop", "downed", "invalid", "bad", "ovr", "overrun", "overflow"):
		return ClassError
	case has("pkts", "packets", "octets", "bytes", "data", "requests", "sends", "recvs", "reads", "writes"):
		return ClassTraffic
	}
	return ClassOther
}

// counterWords splits a counter name into lower-case words
// (counterword.Split).
func counterWords(name string) []string { return counterword.Split(name) }
