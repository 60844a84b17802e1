package nic

// pciModels names the NICs of the vendors that matter, as lspci does
// (from the PCI ID repository), by vendor and device id.
var pciModels = map[[2]uint16]string{
	{VendorMellanox, 0x1003}: "ConnectX-3",
	{VendorMellanox, 0x1004}: "ConnectX-3 Virtual Function",
	{VendorMellanox, 0x1007}: "ConnectX-3 Pro",
	{VendorMellanox, 0x1013}: "ConnectX-4",
	{VendorMellanox, 0x1014}: "ConnectX-4 Virtual Function",
	{VendorMellanox, 0x1015}: "ConnectX-4 Lx",
	{VendorMellanox, 0x1016}: "ConnectX-4 Lx Virtual Function",
	{VendorMellanox, 0x1017}: "ConnectX-5",
	{VendorMellanox, 0x1018}: "ConnectX-5 Virtual Function",
	{VendorMellanox, 0x1019}: "ConnectX-5 Ex",
	{VendorMellanox, 0x101b}: "ConnectX-6",
	{VendorMellanox, 0x101d}: "ConnectX-6 Dx",
	{VendorMellanox, 0x101e}: "ConnectX Family mlx5Gen Virtual Function",
	{VendorMellanox, 0x101f}: "ConnectX-6 Lx",
	{VendorMellanox, 0x1021}: "ConnectX-7",
	{VendorMellanox, 0x1023}: "ConnectX-8",
	{VendorMellanox, 0xa2d6}: "MT42822 BlueField-2",
	{VendorMellanox, 0xa2dc}: "MT43244 BlueField-3",
	{VendorIntel, 0x10fb}:    "82599ES 10-Gigabit SFI/SFP+",
	{VendorIntel, 0x1521}:    "I350 Gigabit",
	{VendorIntel, 0x1572}:    "Ethernet Controller X710 for 10GbE SFP+",
	{VendorIntel, 0x1583}:    "Ethernet Controller XL710 for 40GbE QSFP+",
	{VendorIntel, 0x158b}:    "Ethernet Controller XXV710 for 25GbE SFP28",
	{VendorIntel, 0x1592}:    "Ethernet Controller E810-C for QSFP",
	{VendorIntel, 0x1593}:    "Ethernet Controller E810-C for SFP",
	{VendorIntel, 0x159b}:    "Ethernet Controller E810-XXV for SFP",
	{VendorIntel, 0x1889}:    "Ethernet Adaptive Virtual Function",
	{VendorIntel, 0x154c}:    "Ethernet Virtual Function 700 Series",
	{VendorBroadcom, 0x16d7}: "BCM57414 NetXtreme-E 10Gb/25Gb",
	{VendorBroadcom, 0x1750}: "BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb",
	{VendorVirtio, 0x1000}:   "Virtio network device",
	{VendorVirtio, 0x1041}:   "Virtio 1.0 network device",
	{0x1d0f, 0xec20}:         "Elastic Network Adapter (ENA)",
	{0x1414, 0x00ba}:         "MANA Ethernet",
}

// Model names the device as lspci does for the NICs this project meets
// ("ConnectX-5", "Ethernet Controller E810-C for QSFP"); "" for others,
// whose ids ID gives.
//
// Similar to: lspci -s ADDR
func (p PCIDevice) Model() string { return pciModels[[2]uint16{p.Vendor, p.Device}] }
