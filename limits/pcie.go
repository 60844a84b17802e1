package limits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PCIe transaction-layer costs assumed by PCIe.PayloadGbps (see the
// package doc).
const (
	DefaultMaxPayloadBytes = 256 // Max Payload Size most root ports set
	TLPOverheadBytes       = 24  // 4-DW header 16, framing and sequence 4, LCRC 4
	DLLPShare              = 0.05
)

// ErrPCIeSpeed is matched by the error for a PCIe speed that is not one of
// 2.5, 5, 8, 16 or 32 GT/s (Gen6's FLIT mode is not modelled).
var ErrPCIeSpeed = errors.New("limits: PCIe speed not modelled")

// PCIe is a PCIe link as sysfs reports it (current_link_speed and
// current_link_width, or their max_ forms).
type PCIe struct {
	GTps  float64 // transfer rate per lane: 2.5, 5, 8, 16, 32
	Width int     // lanes: 1, 2, 4, 8, 16, 32
	// MaxPayloadBytes is the Max Payload Size; 0 means 256.
	MaxPayloadBytes int
}

// Known reports whether the link's speed and width were read.
func (p PCIe) Known() bool { return p.GTps > 0 && p.Width > 0 }

// Generation returns the PCIe generation of the speed (1 to 5), or 0.
func (p PCIe) Generation() int {
	for i, s := range []float64{2.5, 5, 8, 16, 32} {
		if p.GTps == s {
			return i + 1
		}
	}
	return 0
}

func (p PCIe) encoding() (float64, error) {
	switch p.Generation() {
	case 1, 2:
		return 8.0 / 10, nil
	case 3, 4, 5:
		return 128.0 / 130, nil
	}
	return 0, fmt.Errorf("%w: %g GT/s", ErrPCIeSpeed, p.GTps)
}

// RawGbps returns the link's data rate after line encoding, per direction:
// 8 GT/s x16 → 126.0 Gbit/s.
func (p PCIe) RawGbps() (float64, error) {
	enc, err := p.encoding()
	if err != nil {
		return 0, err
	}
	if p.Width <= 0 || p.Width > 32 {
		return 0, inputError("PCIe width x%d", p.Width)
	}
	return p.GTps * float64(p.Width) * enc, nil
}

// PayloadGbps returns the payload the link carries per direction after TLP
// and DLLP overhead (the package doc states the assumptions): 8 GT/s x16 →
// about 109.4 Gbit/s.
func (p PCIe) PayloadGbps() (float64, error) {
	raw, err := p.RawGbps()
	if err != nil {
		return 0, err
	}
	mps := p.MaxPayloadBytes
	if mps == 0 {
		mps = DefaultMaxPayloadBytes
	}
	if mps < 128 || mps > 4096 || mps&(mps-1) != 0 {
		return 0, inputError("PCIe max payload %d B", mps)
	}
	return raw * float64(mps) / float64(mps+TLPOverheadBytes) * (1 - DLLPShare), nil
}

// String is the link's speed and width ("PCIe 8 GT/s x16").
func (p PCIe) String() string {
	if !p.Known() {
		return "PCIe link unknown"
	}
	return fmt.Sprintf("PCIe %g GT/s x%d", p.GTps, p.Width)
}

// Below reports whether p runs slower or narrower than max: a degraded
// link (a card in a narrower slot, a link trained down).
func (p PCIe) Below(max PCIe) bool {
	return p.Known() && max.Known() && (p.GTps < max.GTps || p.Width < max.Width)
}

// ParsePCIeSpeed reads a sysfs current_link_speed or max_link_speed value:
// "8.0 GT/s PCIe" (kernels since 4.19), "8 GT/s", "2.5 GT/s". "Unknown"
// and "" give 0 and no error.
func ParsePCIeSpeed(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "unknown") || strings.HasPrefix(s, "Unknown") {
		return 0, nil
	}
	num, _, ok := strings.Cut(s, " GT/s")
	if !ok {
		num, _, ok = strings.Cut(s, "GT/s")
	}
	if !ok {
		return 0, inputError("PCIe link speed %q", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(v > 0 && v <= 1000) {
		return 0, inputError("PCIe link speed %q", s)
	}
	return v, nil
}
