package plot

import (
	"image/color"

	"github.com/rocekit/rocekit/report"
	"gonum.org/v1/plot/vg/draw"
)

// ceilingColor draws what a path could carry at best, apart from the
// rounds' colours.
var ceilingColor = color.RGBA{R: 0xb2, G: 0x18, B: 0x2b, A: 0xff}

// ceilingStyle is the solid line of a ceiling.
func ceilingStyle() draw.LineStyle {
	return draw.LineStyle{Color: ceilingColor, Width: 1.5}
}

// ceilingOf is the ceiling stored with a round's verdict in the unit of
// its metric, and what it is ("link", "pcie"); false when the round has
// none or the unit is not a rate (latency has no ceiling of this kind).
func ceilingOf(r report.Round, unit string) (float64, string, bool) {
	v := r.Bottleneck
	if v == nil || v.Ceiling == nil || v.Ceiling.Gbps <= 0 {
		return 0, "", false
	}
	switch unit {
	case report.UnitGbps:
		return v.Ceiling.Gbps, string(v.Ceiling.Resource), true
	case report.UnitMbps:
		return v.Ceiling.Gbps * 1e3, string(v.Ceiling.Resource), true
	}
	return 0, "", false
}
