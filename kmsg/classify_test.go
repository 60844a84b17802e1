package kmsg

import (
	"strings"
	"testing"
)

// TestClassify: the messages issue 15 names, each to its kind and rule.
func TestClassify(t *testing.T) {
	for text, want := range map[string]struct {
		kind Kind
		name string
	}{
		"mlx5_core 0000:3b:00.0: cmd_exec timeout": {KindTimeout, "firmware command timeout"},
		"mlx5_core 0000:03:00.0: wait_func:964:(pid 112): ENABLE_HCA(0x104) timeout. Will cause a leak of a command resource": {KindTimeout, "firmware command timeout"},
		"NETDEV WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out":                                                       {KindTimeout, "transmit queue timeout"},
		"mlx5_core 0000:3b:00.0 ens1f0np0: TX timeout detected":                                                               {KindTimeout, "transmit queue timeout"},
		"mlx5_core 0000:3b:00.0 ens1f0np0: Link down":                                                                         {KindLinkFlap, "link down"},
		"mlx5_core 0000:3b:00.0 ens1f0np0: Link up":                                                                           {KindLinkFlap, "link up"},
		"i40e 0000:3b:00.0 enp59s0f0: NIC Link is Down":                                                                       {KindLinkFlap, "link down"},
		"ice 0000:5e:00.0 ens1f0: NIC Link is up 100 Gbps Full Duplex":                                                        {KindLinkFlap, "link up"},
		"IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready":                                                             {KindLinkFlap, "link up"},
		"tg3 0000:02:00.0 eth0: carrier lost":                                                                                 {KindLinkFlap, "link down"},
		"mlx5_core 0000:41:00.0: poll_health:852:(pid 0): device's health compromised - reached miss count":                   {KindFirmware, "device health or firmware error"},
		"mlx5_core 0000:41:00.0: print_health_info:458:(pid 0): synd 0x8: unrecoverable hardware error":                       {KindFirmware, "device health or firmware error"},
		"mlx5_core 0000:3b:00.0: Firmware version is too old":                                                                 {KindFirmware, "device health or firmware error"},
		"bnxt_en 0000:3b:00.0: FW fatal error":                                                                                {KindFirmware, "device health or firmware error"},
		"pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0":                                                       {KindPCIe, "PCIe/AER error"},
		"mlx5_core 0000:3b:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer":                                     {KindPCIe, "PCIe/AER error"},
		"kworker/u64:2: page allocation failure: order:4, mode:0x40dc0":                                                       {KindAllocation, "page allocation failure"},
		// mlx5 firmware start-up and command-interface lines: the kernel's
		// format strings (main.c, cmd.c, eq.c, health.c of v4.10 to v6.18)
		// filled in; the real ones are in testdata/realworld/kmsg.
		"mlx5_core 0000:6f:00.0: wait_fw_init:211:(pid 8): Waiting for FW pre-initializing, timeout abort in 100s (0x87010000)":                              {KindFirmware, "firmware initialization slow"},
		"mlx5_core 0000:03:00.0: Waiting for FW initialization, timeout abort in 19s":                                                                        {KindFirmware, "firmware initialization slow"},
		"mlx5_core 0000:6f:00.0: wait_fw_init:201:(pid 8): Firmware over 120000 MS in pre-initializing state, aborting":                                      {KindFirmware, "firmware initialization timeout"},
		"mlx5_core 0000:03:00.0: mlx5_function_setup:1107:(pid 8): Firmware over 120000 MS in initializing state, aborting":                                  {KindFirmware, "firmware initialization timeout"},
		"mlx5_core 0000:03:00.0: wait_fw_init:201:(pid 8): Firmware over 120000 MS in initializing state, aborting":                                          {KindFirmware, "firmware initialization timeout"},
		"mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).":                              {KindTimeout, "firmware command timeout"},
		"mlx5_core 0000:56:00.0: cb_timeout_handler:905:(pid 0): cmd[3]: QUERY_VPORT_COUNTER(0x770) Async, timeout. Will cause a leak of a command resource": {KindTimeout, "firmware command timeout"},
		"mlx5_core 0000:56:00.0: wait_func:1189:(pid 72061): ACCESS_REG(0x805) canceled on out of queue timeout.":                                            {KindTimeout, "firmware command timeout"},
		"mlx5_core 0000:56:00.0: cmd_work_handler:1033:(pid 9): ACCESS_REG(0x805) timed out while waiting for a slot.":                                       {KindTimeout, "firmware command timeout"},
		"mlx5_core 0000:00:02.0: cb_timeout_handler:899:(pid 0): cmd[1]: CREATE_CQ(0x400) Async, recovered after timeout":                                    {KindTimeout, "command completion lost"},
		"mlx5_core 0000:00:02.0: mlx5_cmd_eq_recover:247:(pid 3122): Recovered 1 EQEs on cmd_eq":                                                             {KindTimeout, "command completion lost"},
		"mlx5_core 0000:00:00.0: poll_health:694:(pid 0): Fatal error 1 detected":                                                                            {KindFirmware, "device health or firmware error"},
		"mlx5_core 0000:49:00.0: Health issue observed, High temperature, severity(2) CRITICAL:":                                                             {KindFirmware, "device health or firmware error"},
		"mlx5_core 0000:49:00.0: mlx5_health_try_recover:336:(pid 2012): health recovery flow aborted, PCI reads still not working":                          {KindFirmware, "device health or firmware error"},
		"mlx5_core 468b:00:02.0: probe_one:1764:(pid 17): mlx5_init_one failed with error code -16":                                                          {KindFirmware, "device health or firmware error"},
		"rdma_rxe: Failed sending ack": {KindRDMA, "RDMA message"},
		"infiniband rxe0: added eth0":  {KindRDMA, "RDMA message"},
	} {
		r, ok := Classify(Record{Text: text, Source: SourceOf(text)})
		if !ok || r.Kind != want.kind || r.Name != want.name || r.Action == "" {
			t.Errorf("Classify(%q) = %v %q (%v), want %v %q", text, r.Kind, r.Name, ok, want.kind, want.name)
		}
	}
	for _, text := range []string{
		"mlx5_core 0000:01:00.0: firmware version: 16.27.2048",
		"ata1: SATA link down (SStatus 0 SControl 300)",
		"eth0: renamed from veth1",
		"rocekit-test: injected",
		// a firmware that recovered its lost completion is not a timeout
		// of another driver's "recovered" message
		"nvme nvme0: I/O 12 QID 3 timeout, completion polled",
		"mlx5_core 0000:6f:00.0: wait_fw_init:215:(pid 8): device is being removed, stop waiting for FW pre-initializing",
	} {
		if r, ok := Classify(Record{Text: text, Source: SourceOf(text)}); ok {
			t.Errorf("Classify(%q) = %v %q, want no match", text, r.Kind, r.Name)
		}
	}
}

func TestRulesActions(t *testing.T) {
	rs := Rules()
	if len(rs) < 8 {
		t.Fatalf("%d rules", len(rs))
	}
	rs[0].Name = "changed"
	if Rules()[0].Name == "changed" {
		t.Error("Rules returns the package's slice")
	}
	for _, r := range Rules() {
		if r.Kind == KindNone || r.Action == "" || r.Kind.String() == "none" {
			t.Errorf("rule %+v", r)
		}
	}
	if r, _ := Classify(Record{Text: "mlx5_core 0000:3b:00.0: cmd_exec timeout"}); !strings.Contains(r.Action, "firmware") {
		t.Errorf("mlx5 timeout action %q does not point at the firmware", r.Action)
	}
	// The runbook's remedies: the firmware version against the driver's,
	// mlxup/mstflint to update, mlxfwreset to reset; a command timeout
	// under load may be the driver too.
	for _, text := range []string{
		"mlx5_core 0000:6f:00.0: wait_fw_init:201:(pid 8): Firmware over 120000 MS in pre-initializing state, aborting",
		"mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).",
		"mlx5_core 0000:00:00.0: poll_health:709:(pid 0): device's health compromised - reached miss count",
	} {
		r, _ := Classify(Record{Text: text, Source: SourceOf(text)})
		for _, w := range []string{"ethtool -i", "mlxup", "mstflint", "mlxfwreset"} {
			if !strings.Contains(r.Action, w) {
				t.Errorf("%q: action %q does not name %s", text, r.Action, w)
			}
		}
	}
	if r, _ := Classify(Record{Text: "mlx5_core 0000:56:00.0: wait_func:1189:(pid 72061): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource"}); !strings.Contains(r.Action, "driver or the firmware") {
		t.Errorf("command timeout action %q does not say it may be the driver", r.Action)
	}
	if r, _ := Classify(Record{Text: "x: NIC Link is Down"}); !strings.Contains(r.Action, "cable") || !strings.Contains(r.Action, "switch port") {
		t.Errorf("link flap action %q", r.Action)
	}
}
