package nic

import (
	"fmt"
	"strconv"
	"strings"
)

// Driver is what `ethtool -i` prints.
type Driver struct {
	Driver              string `json:"driver"`
	Version             string `json:"version"`
	FirmwareVersion     string `json:"firmware_version,omitempty"`
	ExpansionROMVersion string `json:"expansion_rom_version,omitempty"`
	BusInfo             string `json:"bus_info,omitempty"` // the PCI address for PCI NICs
	NStats              uint32 `json:"n_stats"`
	NPrivFlags          uint32 `json:"n_priv_flags"`
}

// Duplex is the duplex mode of a link.
type Duplex string

// Duplex modes; DuplexUnknown is what virtio and other virtual NICs report
// (255).
const (
	DuplexHalf    Duplex = "half"
	DuplexFull    Duplex = "full"
	DuplexUnknown Duplex = "unknown"
)

// LinkSettings is the part of `ethtool NAME` that a test records.
type LinkSettings struct {
	SpeedMbps    int    `json:"speed_mbps"` // -1: unknown (virtio: "Speed: Unknown!")
	Duplex       Duplex `json:"duplex"`
	Autoneg      bool   `json:"autoneg"`
	Port         string `json:"port"` // "TP", "FIBRE", "DA", "Other", ...
	LinkDetected bool   `json:"link_detected"`
	// Supported, Advertised and PartnerAdvertised are the link modes by
	// their kernel names ("25000baseCR_Full", "10000baseT_Full"): what
	// the NIC can do, what it offers, what the link partner offers.
	// Empty for virtual NICs.
	Supported         []string `json:"supported,omitempty"`
	Advertised        []string `json:"advertised,omitempty"`
	PartnerAdvertised []string `json:"partner_advertised,omitempty"`
}

// MaxSupportedMbps is the fastest of the Supported link modes in Mbit/s,
// 0 when none is known: a 25G NIC linked at 10000 runs below what it can
// (optics, cable, or the partner).
//
// Similar to: ethtool NAME | grep -A20 'Supported link modes'
func (l LinkSettings) MaxSupportedMbps() int {
	best := 0
	for _, m := range l.Supported {
		best = max(best, LinkModeMbps(m))
	}
	return best
}

// LinkModeMbps is the speed of a kernel link mode name in Mbit/s:
// "25000baseCR_Full" is 25000, "2500baseT_Full" 2500; 0 for names
// without a speed ("Autoneg", "FIBRE", "Pause").
func LinkModeMbps(mode string) int {
	i := strings.Index(mode, "base")
	if i <= 0 {
		return 0
	}
	n, err := strconv.Atoi(mode[:i])
	if err != nil {
		return 0
	}
	return n
}

// portName names an ethtool PORT_* value as ethtool does.
func portName(p uint8) string {
	switch p {
	case 0x00:
		return "Twisted Pair"
	case 0x01:
		return "AUI"
	case 0x02:
		return "BNC"
	case 0x03:
		return "MII"
	case 0x04:
		return "FIBRE"
	case 0x05:
		return "Direct Attach Copper"
	case 0xef:
		return "None"
	case 0xff:
		return "Other"
	}
	return fmt.Sprintf("Unknown! (%d)", p)
}

func duplexOf(d uint8) Duplex {
	switch d {
	case 0:
		return DuplexHalf
	case 1:
		return DuplexFull
	}
	return DuplexUnknown
}

// speedMbps turns ETHTOOL_GSET's speed (0xffff or 0xffffffff: unknown) into
// Mbit/s or -1.
func speedMbps(s uint32) int {
	if s == 0 || s == 0xffff || s == 0xffffffff {
		return -1
	}
	return int(s)
}

// Ring is a NIC's ring sizes, current and maximum (`ethtool -g`).
type Ring struct {
	RxPending      uint32 `json:"rx"`
	RxMiniPending  uint32 `json:"rx_mini"`
	RxJumboPending uint32 `json:"rx_jumbo"`
	TxPending      uint32 `json:"tx"`
	RxMax          uint32 `json:"rx_max"`
	RxMiniMax      uint32 `json:"rx_mini_max"`
	RxJumboMax     uint32 `json:"rx_jumbo_max"`
	TxMax          uint32 `json:"tx_max"`
}

// RingUpdate changes the ring sizes whose fields are set (`ethtool -G`).
type RingUpdate struct {
	Rx, RxMini, RxJumbo, Tx *uint32
}

// apply returns r with u's fields set.
func (u RingUpdate) apply(r Ring) Ring {
	set(&r.RxPending, u.Rx)
	set(&r.RxMiniPending, u.RxMini)
	set(&r.RxJumboPending, u.RxJumbo)
	set(&r.TxPending, u.Tx)
	return r
}

// Update returns the RingUpdate that restores r: pass the Ring a SetRing
// returned.
func (r Ring) Update() RingUpdate {
	return RingUpdate{Rx: &r.RxPending, RxMini: &r.RxMiniPending, RxJumbo: &r.RxJumboPending, Tx: &r.TxPending}
}

// Channels is a NIC's queue counts, current and maximum (`ethtool -l`).
type Channels struct {
	Rx          uint32 `json:"rx"`
	Tx          uint32 `json:"tx"`
	Other       uint32 `json:"other"`
	Combined    uint32 `json:"combined"`
	MaxRx       uint32 `json:"max_rx"`
	MaxTx       uint32 `json:"max_tx"`
	MaxOther    uint32 `json:"max_other"`
	MaxCombined uint32 `json:"max_combined"`
}

// ChannelsUpdate changes the counts whose fields are set (`ethtool -L`).
type ChannelsUpdate struct {
	Rx, Tx, Other, Combined *uint32
}

func (u ChannelsUpdate) apply(c Channels) Channels {
	set(&c.Rx, u.Rx)
	set(&c.Tx, u.Tx)
	set(&c.Other, u.Other)
	set(&c.Combined, u.Combined)
	return c
}

// Update returns the ChannelsUpdate that restores c: pass the Channels a
// SetChannels returned.
func (c Channels) Update() ChannelsUpdate {
	return ChannelsUpdate{Rx: &c.Rx, Tx: &c.Tx, Other: &c.Other, Combined: &c.Combined}
}

// set copies *v to *dst when an update sets the field (v non-nil).
func set[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Feature is the state of one offload (`ethtool -k`).
type Feature struct {
	Active    bool `json:"active"`
	Requested bool `json:"requested"`
	// Fixed is set when the driver does not let it change ("[fixed]").
	Fixed bool `json:"fixed,omitempty"`
}
