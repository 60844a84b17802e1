package nic

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// realworldEthtoolDir holds real `ethtool -S` outputs of other people's
// hosts (testdata/realworld/README.md).
const realworldEthtoolDir = "../testdata/realworld/ethtool"

// realworldEthtoolCase is what a corpus file says, read off its text.
type realworldEthtoolCase struct {
	counters int
	warnings map[int]string // line → reason
	values   map[string]uint64
	classes  map[CounterClass]int // counters per class (ClassOther left out)
	named    map[string]CounterClass
	// nonzeroLosses, when set, is every counter of a loss class whose
	// value is not 0.
	nonzeroLosses []string
}

var realworldEthtoolCases = map[string]realworldEthtoolCase{
	"be2net-ethq": {
		counters: 222,
		values: map[string]uint64{"rxq0: rx_bytes": 2439792269, "rxq8: rx_compl_err": 93862, "txq7: tx_pkts": 8958932,
			"rx_address_filtered": 5164994},
		classes: map[CounterClass]int{ClassDrop: 42, ClassError: 76, ClassPause: 4},
		named: map[string]CounterClass{"rxq3: rx_drops_no_frags": ClassDrop, "tx_pauseframes": ClassPause,
			"rx_frame_too_long": ClassError, "rx_address_filtered": ClassOther, "tx_controlframes": ClassOther, "txq0: tx_stops": ClassOther},
		nonzeroLosses: []string{"rx_dropped_header_too_small", "rx_dropped_tcp_length", "rx_dropped_too_short",
			"rx_dropped_too_small", "rx_ip_checksum_errs", "rx_tcp_checksum_errs", "rx_udp_checksum_errs", "rxq8: rx_compl_err"},
	},
	"bnxt-en-ethq": {
		counters: 499,
		values: map[string]uint64{"[0]: rx_discards": 11763190, "[11]: rx_l4_csum_errors": 5858,
			"rx_total_ring_discards": 655430134, "rx_bits": 4621497487696704, "rx_stat_discard": 49337, "tx_packets_pri7": 0},
		classes: map[CounterClass]int{ClassDiscard: 45, ClassError: 66, ClassOutOfBuffer: 1, ClassPause: 56},
		named: map[string]CounterClass{"[3]: rx_discards": ClassDiscard, "rx_total_oom_discards": ClassOutOfBuffer,
			"rx_pfc_ena_frames_pri3": ClassPause, "pfc_pri3_rx_duration_us": ClassPause, "[0]: missed_irqs": ClassOther,
			"[5]: tpa_aborts": ClassOther, "rx_buffer_passed_threshold": ClassOther, "rx_fec_corrected_blocks": ClassOther,
			"rx_fec_uncorrectable_blocks": ClassError, "rx_runt_frames": ClassError, "rx_jbr_frames": ClassError,
			"rx_ovrsz_frames": ClassError, "rx_undrsz_frames": ClassError, "tx_fifo_underruns": ClassError},
	},
	"ena-ethq": {
		counters: 104,
		values:   map[string]uint64{"queue_0_rx_bytes": 64430725908, "ena_admin_q_completed_cmd": 28, "interface_up": 1},
		classes:  map[CounterClass]int{ClassError: 33, ClassOutOfBuffer: 8},
		named: map[string]CounterClass{"tx_timeout": ClassError, "admin_q_pause": ClassOther, "wd_expired": ClassOther,
			"queue_0_rx_page_alloc_fail": ClassOutOfBuffer, "queue_1_tx_linearize": ClassOther,
			"queue_2_tx_linearize_failed": ClassError, "ena_admin_q_aborted_cmd": ClassOther, "queue_3_rx_empty_rx_ring": ClassOther},
		nonzeroLosses: []string{},
	},
	"hv-netvsc-annotated-azure42": {
		counters: 36,
		warnings: map[int]string{7: reasonTrailing, 8: reasonTrailing, 38: reasonNotCounter},
		values: map[string]uint64{"tx_send_full": 75776, "rx_comp_busy": 1, "tx_queue_4_bytes": 43152567515,
			"rx_queue_5_bytes": 6360734718},
		classes:       map[CounterClass]int{ClassDrop: 1, ClassError: 1, ClassOutOfBuffer: 2},
		named:         map[string]CounterClass{"vf_tx_dropped": ClassDrop, "tx_send_full": ClassOther, "tx_no_memory": ClassOutOfBuffer},
		nonzeroLosses: []string{},
	},
	"hv-netvsc-azure36": {
		counters: 6,
		values:   map[string]uint64{"tx_send_full": 17464, "tx_scattered": 0},
		classes:  map[CounterClass]int{ClassError: 1, ClassOutOfBuffer: 2},
		named:    map[string]CounterClass{"tx_too_big": ClassError, "tx_busy": ClassOther},
	},
	"i40e-2.3.2-k-ethq": {
		counters: 418,
		values: map[string]uint64{"rx_dropped": 179160, "tx-63.bytes": 0, "rx-5.packets": 36939691673,
			"port.tx_size_127": 334242431469, "port.fdir_sb_status": 1},
		classes: map[CounterClass]int{ClassDrop: 4, ClassDiscard: 4, ClassError: 17, ClassOutOfBuffer: 2, ClassPause: 44},
		named: map[string]CounterClass{"port.tx_hwtstamp_timeouts": ClassOther, "port.tx_hwtstamp_skipped": ClassOther,
			"port.arq_overflows": ClassOther, "port.tx_priority_3_xoff_tx": ClassPause, "rx_pg_alloc_fail": ClassOutOfBuffer},
		nonzeroLosses: []string{"rx_dropped"},
	},
	"i40e-x710-ethq": {
		counters: 202,
		values: map[string]uint64{"port.rx_bytes": 30388004820195, "tx-11.tx_packets": 28143365262,
			"rx-0.rx_bytes": 4974745040637, "port.fdir_atr_status": 1},
		classes: map[CounterClass]int{ClassDrop: 4, ClassDiscard: 4, ClassError: 17, ClassPause: 44},
		named: map[string]CounterClass{"port.rx_oversize": ClassError, "port.rx_undersize": ClassError,
			"port.fdir_atr_match": ClassOther, "port.rx_hwtstamp_cleared": ClassOther, "port.rx_priority_3_xon_2_xoff": ClassPause,
			"port.tx_dropped_link_down": ClassDrop, "veb.rx_discards": ClassDiscard, "port.VF_admin_queue_requests": ClassOther},
		nonzeroLosses: []string{},
	},
	"iavf-vf-ethq": {
		counters:      76,
		values:        map[string]uint64{"rx-8.packets": 69038, "tx-14.bytes": 6765832, "rx_bytes": 7042004, "tx-15.packets": 2},
		classes:       map[CounterClass]int{ClassDiscard: 3, ClassError: 1},
		named:         map[string]CounterClass{"rx_discards": ClassDiscard, "rx_unknown_protocol": ClassDiscard, "rx-0.packets": ClassOther},
		nonzeroLosses: []string{},
	},
	"ice-e810-ethq": {
		counters: 602,
		values: map[string]uint64{"rx_unicast": 12117448, "tx_queue_127_bytes": 0, "tx_queue_21_bytes": 9232103576,
			"rx_queue_119_packets": 1380062, "tx_size_1522.nic": 48786130, "fdir_sb_status.nic": 1},
		classes: map[CounterClass]int{ClassDrop: 3, ClassDiscard: 1, ClassError: 13, ClassOutOfBuffer: 2, ClassPause: 36},
		named: map[string]CounterClass{"rx_dropped.nic": ClassDrop, "link_xoff_tx.nic": ClassPause, "tx_busy": ClassOther,
			"rx_alloc_fail": ClassOutOfBuffer, "rx_jabber.nic": ClassError, "tx_restart": ClassOther, "fdir_sb_match.nic": ClassOther},
		nonzeroLosses: []string{},
	},
	"ice-e810-pfc-reflowed": {
		counters: 32,
		warnings: map[int]string{1: reasonJoined},
		values:   map[string]uint64{"tx_priority_2_xoff.nic": 14864, "tx_priority_0_xoff.nic": 6434, "rx_priority_7_xoff.nic": 0},
		classes:  map[CounterClass]int{ClassPause: 32},
	},
	"ixgbe-x520-ethq24": {
		counters: 47,
		warnings: map[int]string{49: reasonNoValue},
		values:   map[string]uint64{"tx_pkts_nic": 160006, "tx_bytes_nic": 10880408, "lsc_int": 36, "alloc_rx_page": 2044},
		classes:  map[CounterClass]int{ClassDrop: 2, ClassError: 15, ClassMissed: 1, ClassOutOfBuffer: 4, ClassPause: 4},
		named: map[string]CounterClass{"fdir_miss": ClassOther, "alloc_rx_page": ClassOther, "alloc_rx_page_failed": ClassOutOfBuffer,
			"rx_no_dma_resources": ClassOutOfBuffer, "tx_flow_control_xoff": ClassPause, "rx_missed_errors": ClassMissed},
		nonzeroLosses: []string{},
	},
	"mlx5-old-ethq": {
		counters: 309,
		values:   map[string]uint64{"rx_packets": 5487361, "p1519to2047octets": 375454, "rx14_packets": 3553253, "tx15_0_nop": 7392},
		classes:  map[CounterClass]int{ClassDrop: 18, ClassDiscard: 3, ClassError: 34, ClassPause: 2},
		named: map[string]CounterClass{"pause_ctrl_rx": ClassPause, "in_discards": ClassDiscard, "drop_events": ClassDrop,
			"undersize_pkts": ClassError, "mac_control_rx": ClassOther, "rx_csum_sw": ClassOther},
		nonzeroLosses: []string{},
	},
	"mlx5-xdp-5.15-lore": {
		counters: 101,
		values: map[string]uint64{"rx_out_of_buffer": 990473555, "rx_if_down_packets": 67469721,
			"rx_discards_phy": 58591428329, "tx_pause_ctrl_phy": 5745055, "rx_prio0_discards": 58591314012},
		classes: map[CounterClass]int{ClassDrop: 6, ClassDiscard: 4, ClassError: 7, ClassOutOfBuffer: 2, ClassPause: 3},
		named: map[string]CounterClass{"rx0_arfs_err": ClassOther, "rx_cache_full": ClassOther, "rx_steer_missed_packets": ClassDiscard,
			"rx_undersize_pkts_phy": ClassError, "rx_xdp_tx_full": ClassDrop, "tx_global_pause_duration": ClassPause},
		nonzeroLosses: []string{"rx0_xdp_drop", "rx_discards_phy", "rx_if_down_packets", "rx_out_of_buffer",
			"rx_prio0_discards", "rx_steer_missed_packets", "rx_xdp_drop"},
	},
	"mlx5-xdp-6.5-lore": {
		counters: 108,
		values: map[string]uint64{"rx_out_of_buffer": 534918379, "rx_if_down_packets": 4044804, "rx_pp_alloc_fast": 3641784,
			"rx_buffer_passed_thres_phy": 1192226, "tx_global_pause_duration": 5961284324},
		classes: map[CounterClass]int{ClassDrop: 6, ClassDiscard: 3, ClassError: 3, ClassOutOfBuffer: 2, ClassPause: 3},
		named: map[string]CounterClass{"rx_pp_alloc_empty": ClassOther, "rx_buffer_passed_thres_phy": ClassOther,
			"rx0_pp_recycle_ring_full": ClassOther, "rx0_oversize_pkts_sw_drop": ClassDrop},
	},
	"r8169-node-exporter": {
		counters: 15,
		warnings: map[int]string{1: reasonNotCounter},
		values:   map[string]uint64{"rx_missed": 401, "duplicate metric": 1, "duplicate_metric": 2, "rx_unicast": 1230297},
		classes:  map[CounterClass]int{ClassError: 5, ClassMissed: 1},
		named: map[string]CounterClass{"tx_aborted": ClassError, "tx_underrun": ClassError, "align_errors": ClassError,
			"tx_single_collisions": ClassOther},
		nonzeroLosses: []string{"rx_missed"},
	},
	"virtio-net-ethq": {
		counters:      8,
		values:        map[string]uint64{"tx_queue_1_bytes": 18293525171, "rx_queue_0_packets": 10282181},
		classes:       map[CounterClass]int{},
		nonzeroLosses: []string{},
	},
	"virtio-net-xdp-netdata": {
		counters: 28,
		values:   map[string]uint64{"rx_queue_1_packets": 341999, "rx_queue_1_kicks": 6, "rx_queue_3_xdp_packets": 0},
		classes:  map[CounterClass]int{ClassDrop: 7},
		named:    map[string]CounterClass{"rx_queue_0_kicks": ClassOther, "rx_queue_0_xdp_tx": ClassOther, "rx_queue_2_xdp_drops": ClassDrop},
	},
}

func readRealworldEthtool(t testing.TB, name string) (Stats, []TextWarning, error) {
	t.Helper()
	f, err := os.Open(filepath.Join(realworldEthtoolDir, name, "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ParseEthtoolStats(f)
}

// TestRealworldEthtool parses every corpus case and checks it against
// what its text says; a case folder without an entry fails.
func TestRealworldEthtool(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(realworldEthtoolDir, "*", "source.json"))
	if err != nil || len(dirs) < len(realworldEthtoolCases) {
		t.Fatalf("%d cases in %s (%v)", len(dirs), realworldEthtoolDir, err)
	}
	for _, src := range dirs {
		name := filepath.Base(filepath.Dir(src))
		t.Run(name, func(t *testing.T) {
			want, ok := realworldEthtoolCases[name]
			if !ok {
				t.Fatalf("no expected values for %s", name)
			}
			checkSourceJSON(t, src)
			st, warns, err := readRealworldEthtool(t, name)
			if err != nil {
				t.Fatal(err)
			}
			checkRealworldEthtool(t, st, warns, want)
		})
	}
}

func checkSourceJSON(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]string
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"url", "title", "retrieved", "device", "tool", "version", "command", "whitespace"} {
		if s[k] == "" {
			t.Errorf("source.json: no %s", k)
		}
	}
	switch s["whitespace"] {
	case "intact", "expanded", "reflowed", "truncated":
	default:
		t.Errorf("source.json: whitespace %q", s["whitespace"])
	}
}

func checkRealworldEthtool(t *testing.T, st Stats, warns []TextWarning, want realworldEthtoolCase) {
	t.Helper()
	if len(st.Ethtool) != want.counters {
		t.Errorf("%d counters, want %d", len(st.Ethtool), want.counters)
	}
	got := map[int]string{}
	for _, w := range warns {
		got[w.Line] = w.Reason
	}
	if !maps.Equal(got, want.warnings) {
		t.Errorf("warnings %v, want %v", got, want.warnings)
	}
	for name, v := range want.values {
		if g, ok := st.Ethtool[name]; !ok || g != v {
			t.Errorf("%s = %d (present %v), want %d", name, g, ok, v)
		}
	}
	classes := map[CounterClass]int{}
	nonzero := []string{}
	for name, v := range st.Ethtool {
		c := ClassifyCounter(name)
		if c != ClassOther {
			classes[c]++
		}
		if c.IsLoss() && v != 0 {
			nonzero = append(nonzero, name)
		}
	}
	if !maps.Equal(classes, want.classes) {
		t.Errorf("classes %v, want %v", classes, want.classes)
	}
	for name, c := range want.named {
		if _, ok := st.Ethtool[name]; !ok {
			t.Errorf("no counter %s", name)
		}
		if g := ClassifyCounter(name); g != c {
			t.Errorf("ClassifyCounter(%q) = %q, want %q", name, g, c)
		}
	}
	if want.nonzeroLosses != nil {
		slices.Sort(nonzero)
		if !slices.Equal(nonzero, want.nonzeroLosses) {
			t.Errorf("non-zero losses %v, want %v", nonzero, want.nonzeroLosses)
		}
	}
}

// TestRealworldEthtoolDelta compares two captured texts of mlx5 (kernel
// 5.15, then 6.5 after a reboot) the way Handle.Stats snapshots compare.
func TestRealworldEthtoolDelta(t *testing.T) {
	before, _, err := readRealworldEthtool(t, "mlx5-xdp-5.15-lore")
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := readRealworldEthtool(t, "mlx5-xdp-6.5-lore")
	if err != nil {
		t.Fatal(err)
	}
	d, err := after.Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []CounterDelta{
		{Source: SourceEthtool, Name: "rx_out_of_buffer", Class: ClassOutOfBuffer, Before: 990473555, After: 534918379, Delta: 534918379, Reset: true},
		{Source: SourceEthtool, Name: "rx_xdp_drop", Class: ClassDrop, Before: 3753342954, After: 7783331724, Delta: 4029988770},
		{Source: SourceEthtool, Name: "tx_pause_ctrl_phy", Class: ClassPause, Before: 5745055, After: 44414017, Delta: 38668962},
	} {
		if got, ok := d.Get(SourceEthtool, want.Name); !ok || got != want {
			t.Errorf("%s: %+v, want %+v", want.Name, got, want)
		}
	}
	if _, ok := d.Get(SourceEthtool, "rx_pp_alloc_fast"); ok {
		t.Error("rx_pp_alloc_fast is only in the second text and must be left out")
	}
	for _, c := range d.Losses() {
		if c.Class == ClassPause || c.Name == "tx_global_pause" {
			t.Errorf("pause counter %s among losses", c.Name)
		}
	}
	var pauses []string
	for _, c := range d.Pauses() {
		pauses = append(pauses, c.Name)
	}
	if want := []string{"tx_global_pause", "tx_global_pause_duration", "tx_pause_ctrl_phy"}; !slices.Equal(pauses, want) {
		t.Errorf("pauses %v, want %v", pauses, want)
	}
}
