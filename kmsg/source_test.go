package kmsg

import "testing"

// TestSourceOf: the prefixes named in issue 15 and seen in the corpus.
func TestSourceOf(t *testing.T) {
	for text, want := range map[string]Source{
		"mlx5_core 0000:3b:00.0: cmd_exec timeout":                             {Driver: "mlx5_core", Device: "0000:3b:00.0"},
		"mlx5_core 0000:3b:00.0 ens1f0np0: Link up":                            {Driver: "mlx5_core", Device: "0000:3b:00.0", Netdev: "ens1f0np0"},
		"ice 0000:5e:00.0 ens1f0: NIC Link is up 100 Gbps Full Duplex":         {Driver: "ice", Device: "0000:5e:00.0", Netdev: "ens1f0"},
		"i40e: Intel(R) Ethernet Connection XL710 Network Driver":              {Driver: "i40e"},
		"mlx4_en: 0001:00:02.0: Port 1: Using 8 TX rings":                      {Driver: "mlx4_en", Device: "0001:00:02.0"},
		"mlx4_en: eth0: Link Up":                                               {Driver: "mlx4_en", Netdev: "eth0"},
		"virtio_net virtio1 eth0: renamed":                                     {Driver: "virtio_net", Device: "virtio1", Netdev: "eth0"},
		"rdma_rxe: loaded":                                                     {Driver: "rdma_rxe"},
		"infiniband rxe0: set active":                                          {Driver: "infiniband", Device: "rxe0"},
		"bnxt_en 0000:3b:00.0 eno1np0: NIC Link is Up, 25000 Mbps full duplex": {Driver: "bnxt_en", Device: "0000:3b:00.0", Netdev: "eno1np0"},
		"ena 0000:00:05.0 eth0: Tx timeout":                                    {Driver: "ena", Device: "0000:00:05.0", Netdev: "eth0"},
		"hv_netvsc 000d3a96-8b21-000d-3a96-8b21000d3a96 eth0: VF up":           {Driver: "hv_netvsc", Device: "000d3a96-8b21-000d-3a96-8b21000d3a96", Netdev: "eth0"},
		"mana 7870:00:00.0 eth1: Configured vPort 0":                           {Driver: "mana", Device: "7870:00:00.0", Netdev: "eth1"},
		"eth0: renamed from veth1":                                             {Netdev: "eth0"},
		"IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready":              {Tag: "IPv6", Netdev: "eth0"},
		"NETDEV WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out":        {Tag: "NETDEV WATCHDOG", Netdev: "eth0", Driver: "mlx5_core"},
		"e1000e: eth1 NIC Link is Down":                                        {Driver: "e1000e", Netdev: "eth1"},
		"ata1: SATA link down (SStatus 0 SControl 300)":                        {Tag: "ata1"},
		"Linux version 6.1.0-50-amd64 (debian-kernel@lists.debian.org)":        {},
		"ACPI: PCI: Interrupt link LNKA configured for IRQ 10":                 {Tag: "ACPI"},
		"hw csum failure": {},
		"":                {},
	} {
		if got := SourceOf(text); got != want {
			t.Errorf("SourceOf(%q) = %+v, want %+v", text, got, want)
		}
	}
}
