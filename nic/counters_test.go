package nic

import (
	"testing"
)

func TestClassifyCounter(t *testing.T) {
	for name, want := range map[string]CounterClass{
		// virtio_net, kernel 6.1 and 6.12 (testdata ethtool-S)
		"rx_queue_0_packets": ClassOther, "rx_queue_0_drops": ClassDrop, "rx_queue_0_xdp_drops": ClassDrop,
		"rx_drops": ClassDrop, "rx0_drops": ClassDrop, "tx_queue_0_kicks": ClassOther, "tx_tx_timeouts": ClassError,
		"tx_queue_0_tx_timeouts": ClassError, "tx_xdp_tx_drops": ClassDrop,
		// veth (testdata ethtool-S-veth)
		"peer_ifindex": ClassOther, "rx_queue_0_xdp_tx_errors": ClassError, "tx_queue_0_xdp_xmit_errors": ClassError,
		// kernel netdev counters (Stats.Link, /proc/net/dev)
		"rx_dropped": ClassDrop, "rx_errors": ClassError, "rx_missed_errors": ClassMissed, "rx_crc_errors": ClassError,
		"rx_fifo_errors": ClassError, "collisions": ClassOther, "multicast": ClassOther,
		// /proc/net/snmp Udp
		"RcvbufErrors": ClassOutOfBuffer, "SndbufErrors": ClassOutOfBuffer, "InCsumErrors": ClassError, "InDatagrams": ClassOther,
		// names mlx5 and others use (not captured here: no such hardware)
		"rx_out_of_buffer": ClassOutOfBuffer, "rx_discards_phy": ClassDiscard, "tx_discards_phy": ClassDiscard,
		"rx_buff_alloc_err": ClassOutOfBuffer, "rx_no_buffer_count": ClassOutOfBuffer, "rx_missed": ClassMissed,
		"interrupts": ClassOther, "rx_vport_unicast_packets": ClassOther, "tx_timeout_count": ClassError,
	} {
		if got := ClassifyCounter(name); got != want {
			t.Errorf("ClassifyCounter(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestClassifyCapturedCounters classifies every counter the lab's virtio
// and veth drivers report: none may be mistaken for traffic when its name
// says loss, and every name must classify the same way twice.
func TestClassifyCapturedCounters(t *testing.T) {
	for _, s := range suites {
		cmds := suiteCapture(t, s)["virtio-veth"].Cmds
		for _, out := range []string{cmds["ethtool-S"], cmds["ethtool-S-veth"]} {
			stats := ethtoolStats(t, out)
			if len(stats) < 10 {
				t.Fatalf("%s: %d counters", s, len(stats))
			}
			for name := range stats {
				c := ClassifyCounter(name)
				lossy := false
				for _, w := range counterWords(name) {
					switch w {
					case "drops", "drop", "errors", "timeouts":
						lossy = true
					}
				}
				if lossy != (c != ClassOther) {
					t.Errorf("%s: %s classified %q", s, name, c)
				}
			}
		}
	}
}

// driverCounters are counter names of real drivers (from their ethtool
// string tables and the outputs in testdata/realworld/ethtool) with the
// class each should have: loss (drop, discard, missed, out of buffer),
// error (malformed, failed), pause (802.3x and PFC), or other.
var driverCounters = []struct {
	driver, name string
	class        CounterClass
}{
	// mlx5 (ConnectX-4..7): software, vport, physical and priority counters
	{"mlx5", "rx_out_of_buffer", ClassOutOfBuffer}, {"mlx5", "rx_if_down_packets", ClassDrop},
	{"mlx5", "rx_steer_missed_packets", ClassDiscard}, {"mlx5", "rx_discards_phy", ClassDiscard},
	{"mlx5", "tx_discards_phy", ClassDiscard}, {"mlx5", "rx_prio0_discards", ClassDiscard},
	{"mlx5", "rx_prio3_buf_discard", ClassOutOfBuffer}, {"mlx5", "rx_prio3_cong_discard", ClassDiscard},
	{"mlx5", "rx_undersize_pkts_phy", ClassError}, {"mlx5", "rx_fragments_phy", ClassError},
	{"mlx5", "rx_jabbers_phy", ClassError}, {"mlx5", "rx_oversize_pkts_phy", ClassError},
	{"mlx5", "rx_crc_errors_phy", ClassError}, {"mlx5", "rx_symbol_err_phy", ClassError},
	{"mlx5", "rx_out_of_range_len_phy", ClassError}, {"mlx5", "rx_in_range_len_errors_phy", ClassError},
	{"mlx5", "tx_errors_phy", ClassError}, {"mlx5", "rx_xdp_tx_full", ClassDrop}, {"mlx5", "rx0_xdp_tx_full", ClassDrop},
	{"mlx5", "rx_xdp_drop", ClassDrop}, {"mlx5", "rx_xdp_tx_err", ClassError}, {"mlx5", "rx0_oversize_pkts_sw_drop", ClassDrop},
	{"mlx5", "rx_buff_alloc_err", ClassOutOfBuffer}, {"mlx5", "rx_xsk_buff_alloc_err", ClassOutOfBuffer},
	{"mlx5", "rx_wqe_err", ClassError}, {"mlx5", "tx_cqe_err", ClassError}, {"mlx5", "tx_queue_dropped", ClassDrop},
	{"mlx5", "rx0_arfs_err", ClassOther}, {"mlx5", "rx_cache_full", ClassOther}, {"mlx5", "rx_cache_busy", ClassOther},
	{"mlx5", "rx_pp_alloc_empty", ClassOther}, {"mlx5", "rx_pp_recycle_ring_full", ClassOther},
	{"mlx5", "rx_buffer_passed_thres_phy", ClassOther}, {"mlx5", "rx_congst_umr", ClassOther}, {"mlx5", "ch0_force_irq", ClassOther},
	{"mlx5", "rx_prio3_pause", ClassPause}, {"mlx5", "tx_prio3_pause", ClassPause}, {"mlx5", "rx_prio3_pause_duration", ClassPause},
	{"mlx5", "tx_prio0_pause_duration", ClassPause}, {"mlx5", "rx_prio3_pause_transition", ClassPause},
	{"mlx5", "rx_global_pause", ClassPause}, {"mlx5", "tx_global_pause_duration", ClassPause},
	{"mlx5", "tx_pause_ctrl_phy", ClassPause}, {"mlx5", "rx_pause_ctrl_phy", ClassPause},
	{"mlx5", "tx_pause_storm_warning_events", ClassPause}, {"mlx5", "tx_mac_control_phy", ClassOther},
	{"mlx5", "rx_prio3_marked", ClassOther}, {"mlx5", "rx_ecn_mark", ClassOther}, {"mlx5", "link_down_events_phy", ClassOther},
	{"mlx5", "rx_vport_unicast_packets", ClassOther}, {"mlx5", "rx_packets_phy", ClassOther},
	// mlx4 (ConnectX-3)
	{"mlx4", "rx_dropped", ClassDrop}, {"mlx4", "rx_jabbers", ClassError}, {"mlx4", "rx_in_range_length_error", ClassError},
	{"mlx4", "rx_out_range_length_error", ClassError}, {"mlx4", "rx_alloc_failed", ClassOutOfBuffer},
	{"mlx4", "rx_alloc_pages", ClassOther}, {"mlx4", "rx_pause", ClassPause}, {"mlx4", "tx_pause_duration", ClassPause},
	{"mlx4", "rx_pause_transition_prio_3", ClassPause}, {"mlx4", "tx_timeout", ClassError}, {"mlx4", "queue_stopped", ClassOther},
	{"mlx4", "wake_queue", ClassOther}, {"mlx4", "rx_xdp_tx_full", ClassDrop},
	// ice (E810)
	{"ice", "rx_dropped.nic", ClassDrop}, {"ice", "tx_dropped_link_down.nic", ClassDrop}, {"ice", "rx_undersize.nic", ClassError},
	{"ice", "rx_oversize.nic", ClassError}, {"ice", "rx_jabber.nic", ClassError}, {"ice", "rx_csum_bad.nic", ClassError},
	{"ice", "illegal_bytes.nic", ClassError}, {"ice", "rx_alloc_fail", ClassOutOfBuffer}, {"ice", "rx_pg_alloc_fail", ClassOutOfBuffer},
	{"ice", "rx_buf_failed", ClassOutOfBuffer}, {"ice", "tx_busy", ClassOther}, {"ice", "tx_restart", ClassOther},
	{"ice", "tx_hwtstamp_timeouts", ClassOther}, {"ice", "tx_hwtstamp_discarded", ClassOther}, {"ice", "rx_unknown_protocol", ClassDiscard},
	{"ice", "link_xoff_rx.nic", ClassPause}, {"ice", "tx_priority_3_xoff.nic", ClassPause}, {"ice", "fdir_sb_match.nic", ClassOther},
	// i40e (X710, XL710)
	{"i40e", "port.rx_dropped", ClassDrop}, {"i40e", "port.rx_oversize", ClassError}, {"i40e", "port.rx_undersize", ClassError},
	{"i40e", "port.rx_fragments", ClassError}, {"i40e", "port.rx_jabber", ClassError}, {"i40e", "veb.rx_discards", ClassDiscard},
	{"i40e", "port.rx_priority_3_xon_2_xoff", ClassPause}, {"i40e", "port.link_xon_tx", ClassPause},
	{"i40e", "port.fdir_miss", ClassOther}, {"i40e", "port.fdir_flush_cnt", ClassOther}, {"i40e", "tx_lost_interrupt", ClassOther},
	{"i40e", "port.arq_overflows", ClassOther}, {"i40e", "tx-0.tx_packets", ClassOther}, {"i40e", "port.VF_admin_queue_requests", ClassOther},
	// ixgbe (82599, X520, X540)
	{"ixgbe", "rx_missed_errors", ClassMissed}, {"ixgbe", "rx_no_buffer_count", ClassOutOfBuffer},
	{"ixgbe", "rx_no_dma_resources", ClassOutOfBuffer}, {"ixgbe", "alloc_rx_buff_failed", ClassOutOfBuffer},
	{"ixgbe", "alloc_rx_page", ClassOther}, {"ixgbe", "fdir_miss", ClassOther}, {"ixgbe", "fdir_overflow", ClassOther},
	{"ixgbe", "tx_flow_control_xoff", ClassPause}, {"ixgbe", "tx_pb_0_pxoff", ClassPause}, {"ixgbe", "rx_pb_7_pxon", ClassPause},
	{"ixgbe", "fcoe_bad_fccrc", ClassError}, {"ixgbe", "rx_fcoe_dropped", ClassDrop}, {"ixgbe", "tx_restart_queue", ClassOther},
	{"ixgbe", "non_eop_descs", ClassOther}, {"ixgbe", "lsc_int", ClassOther},
	// igb (I350, I210)
	{"igb", "tx_abort_late_coll", ClassError}, {"igb", "tx_aborted_errors", ClassError}, {"igb", "tx_hwtstamp_timeouts", ClassOther}, {"igb", "rx_hwtstamp_cleared", ClassOther},
	{"igb", "rx_queue_0_alloc_failed", ClassOutOfBuffer}, {"igb", "rx_queue_3_csum_err", ClassError},
	{"igb", "dropped_smbus", ClassDrop}, {"igb", "tx_single_coll_ok", ClassOther}, {"igb", "tx_deferred_ok", ClassOther},
	{"igb", "rx_flow_control_xon", ClassPause}, {"igb", "tx_dma_out_of_sync", ClassOther}, {"igb", "tx_tcp_seg_failed", ClassError},
	// bnxt_en (BCM57xxx)
	{"bnxt_en", "[0]: rx_discards", ClassDiscard}, {"bnxt_en", "[11]: rx_l4_csum_errors", ClassError},
	{"bnxt_en", "[3]: missed_irqs", ClassOther}, {"bnxt_en", "[0]: tpa_aborts", ClassOther},
	{"bnxt_en", "rx_total_oom_discards", ClassOutOfBuffer}, {"bnxt_en", "rx_total_ring_discards", ClassDiscard},
	{"bnxt_en", "rx_stat_discard", ClassDiscard}, {"bnxt_en", "rx_runt_frames", ClassError}, {"bnxt_en", "rx_jbr_frames", ClassError},
	{"bnxt_en", "rx_ovrsz_frames", ClassError}, {"bnxt_en", "rx_undrsz_frames", ClassError},
	{"bnxt_en", "rx_fec_uncorrectable_blocks", ClassError}, {"bnxt_en", "rx_fec_corrected_blocks", ClassOther},
	{"bnxt_en", "rx_pfc_ena_frames_pri3", ClassPause}, {"bnxt_en", "pfc_pri3_tx_duration_us", ClassPause},
	{"bnxt_en", "continuous_roce_pause_events", ClassPause}, {"bnxt_en", "rx_buffer_passed_threshold", ClassOther},
	{"bnxt_en", "link_down_events", ClassOther},
	// ena (AWS)
	{"ena", "bw_in_allowance_exceeded", ClassDrop}, {"ena", "pps_allowance_exceeded", ClassDrop},
	{"ena", "conntrack_allowance_exceeded", ClassDrop}, {"ena", "conntrack_allowance_available", ClassOther},
	{"ena", "admin_q_pause", ClassOther}, {"ena", "ena_admin_q_aborted_cmd", ClassOther}, {"ena", "wd_expired", ClassOther},
	{"ena", "queue_0_rx_page_alloc_fail", ClassOutOfBuffer}, {"ena", "queue_0_rx_bad_csum", ClassError},
	{"ena", "queue_0_tx_missed_tx", ClassError}, {"ena", "queue_0_rx_xdp_aborted", ClassDrop},
	{"ena", "queue_0_rx_xdp_invalid", ClassError}, {"ena", "queue_0_rx_empty_rx_ring", ClassOther},
	// mana (Azure MANA)
	{"mana", "hc_rx_discards_no_wqe", ClassOutOfBuffer}, {"mana", "hc_rx_err_vport_disabled", ClassError},
	{"mana", "hc_tx_err_inval_vportoffset_pkt", ClassError}, {"mana", "rx_0_xdp_drop", ClassDrop},
	{"mana", "stop_queue", ClassOther}, {"mana", "tx_cqe_unknown_type", ClassOther},
	// hv_netvsc (Azure, Hyper-V)
	{"hv_netvsc", "tx_no_memory", ClassOutOfBuffer}, {"hv_netvsc", "tx_send_full", ClassOther},
	{"hv_netvsc", "rx_comp_busy", ClassOther}, {"hv_netvsc", "vf_tx_dropped", ClassDrop}, {"hv_netvsc", "tx_too_big", ClassError},
	{"hv_netvsc", "cpu3_vf_rx_packets", ClassOther},
	// virtio_net
	{"virtio_net", "rx_queue_0_drops", ClassDrop}, {"virtio_net", "rx_queue_1_xdp_drops", ClassDrop},
	{"virtio_net", "tx_queue_0_timeouts", ClassError}, {"virtio_net", "rx_queue_0_kicks", ClassOther},
	{"virtio_net", "rx_queue_0_hw_drop_overruns", ClassDrop}, {"virtio_net", "rx_queue_0_hw_csum_bad", ClassError},
	// gve (Google)
	{"gve", "rx_skb_alloc_fail", ClassOutOfBuffer}, {"gve", "rx_buf_alloc_fail", ClassOutOfBuffer},
	{"gve", "rx_desc_err_dropped_pkt", ClassDrop}, {"gve", "rx_no_buffers_posted", ClassOutOfBuffer},
	{"gve", "rx_drops_packet_over_mru", ClassDrop}, {"gve", "tx_timeouts", ClassError}, {"gve", "adminq_timeouts", ClassOther},
	{"gve", "dma_mapping_error", ClassError}, {"gve", "interface_down_cnt", ClassOther},
	// hns3 (HiSilicon)
	{"hns3", "txq0_pktnum_rcd", ClassOther}, {"hns3", "rxq0_dropped", ClassDrop}, {"hns3", "rxq0_l3l4_csum_err", ClassError},
	{"hns3", "mac_tx_mac_pause_num", ClassPause}, {"hns3", "mac_rx_pfc_pri3_pkt_num", ClassPause},
	{"hns3", "mac_tx_pfc_pri0_xoff_time", ClassPause}, {"hns3", "mac_rx_fcs_err_pkt_num", ClassError},
	{"hns3", "mac_rx_undermin_pkt_num", ClassError}, {"hns3", "mac_rx_fragment_pkt_num", ClassError},
	{"hns3", "ssu_full_drop_num", ClassDrop}, {"hns3", "mac_rx_send_app_bad_pkt_num", ClassError},
	{"hns3", "mac_tx_control_pkt_num", ClassOther},
	// be2net (Emulex): per-queue names hold ": "
	{"be2net", "rxq8: rx_compl_err", ClassError}, {"be2net", "rxq0: rx_drops_no_skbs", ClassDrop},
	{"be2net", "tx_priority_pauseframes", ClassPause}, {"be2net", "rx_frame_too_long", ClassError},
	{"be2net", "rxpp_fifo_overflow_drop", ClassDrop}, {"be2net", "rx_address_filtered", ClassOther},
	// ethtool -S --all-groups: the standard IEEE and RMON groups (ethtool 5.13 and later)
	{"groups", "eth-mac-FrameCheckSequenceErrors", ClassError}, {"groups", "eth-mac-AlignmentErrors", ClassError},
	{"groups", "eth-mac-FramesLostDueToIntMACRcvError", ClassDrop}, {"groups", "eth-mac-FramesReceivedOK", ClassOther},
	{"groups", "eth-ctrl-MACControlFramesTransmitted", ClassOther}, {"groups", "rmon-etherStatsUndersizePkts", ClassError},
	{"groups", "rmon-etherStatsJabbers", ClassError}, {"groups", "rmon-etherStatsFragments", ClassError},
	{"groups", "rmon-rx-etherStatsPkts64to64Octets", ClassOther}, {"groups", "pause-tx_pause_frames", ClassPause},
}

func TestClassifyDriverCounters(t *testing.T) {
	drivers := map[string]int{}
	for _, c := range driverCounters {
		drivers[c.driver]++
		if got := ClassifyCounter(c.name); got != c.class {
			t.Errorf("%s: ClassifyCounter(%q) = %q, want %q", c.driver, c.name, got, c.class)
		}
	}
	if len(drivers) != 15 {
		t.Errorf("%d drivers, want 15", len(drivers))
	}
}

func TestCounterClassIsLoss(t *testing.T) {
	for c, want := range map[CounterClass]bool{ClassOther: false, ClassPause: false, ClassDrop: true,
		ClassDiscard: true, ClassError: true, ClassMissed: true, ClassOutOfBuffer: true} {
		if c.IsLoss() != want {
			t.Errorf("%q.IsLoss() = %v", c, !want)
		}
	}
}

func FuzzClassifyCounter(f *testing.F) {
	for _, s := range []string{"rx_out_of_buffer", "RcvbufErrors", "rx_queue_0_drops", "", "__", "ÄÖErr"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ClassifyCounter(s)
		if c != ClassifyCounter(s) {
			t.Fatal("not deterministic")
		}
		switch c {
		case ClassOther, ClassDrop, ClassDiscard, ClassError, ClassMissed, ClassOutOfBuffer, ClassPause:
		default:
			t.Fatalf("class %q", c)
		}
	})
}

func BenchmarkClassifyCounter(b *testing.B) {
	name := "rx_queue_17_xdp_drops"
	b.SetBytes(int64(len(name)))
	for b.Loop() {
		ClassifyCounter(name)
	}
}
