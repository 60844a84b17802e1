package fleet

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
)

// Heatmap geometry, in SVG user units.
const (
	heatCell   = 56
	heatMargin = 110
)

// WriteHeatmapSVG draws the matrix as a host × host heatmap: each cell
// coloured from red (the fleet's slowest pair, or 0 against the line rate
// when every pair has one) to green (the fastest, or the line rate), with
// its bandwidth in Gbit/s; failed pairs grey with "fail", pairs not
// measured white with "?".
//
// Similar to: a spreadsheet's colour scale over the matrix
func (m *Matrix) WriteHeatmapSVG(w io.Writer) error {
	lo, hi, byRate := m.colourScale()
	n := len(m.Hosts)
	size := heatMargin + n*heatCell + 20
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", size, size+30)
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="13">%s: Gbit/s per pair (%s)</text>`+"\n", esc(m.Name), scaleNote(byRate))
	for i, h := range m.Hosts {
		x := heatMargin + i*heatCell + heatCell/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x, heatMargin-8, esc(h))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", heatMargin-8, heatMargin+i*heatCell+heatCell/2+4, esc(h))
	}
	at := m.cellAt()
	for i := range n {
		for j := range n {
			x, y := heatMargin+j*heatCell, heatMargin+i*heatCell
			fill, label := "#f4f4f4", ""
			c, ok := at(i, j)
			switch {
			case i == j:
				fill = "#dddddd"
			case ok && c.OK:
				v := c.BWGbps
				if byRate {
					v = c.BWGbps / c.LineRateGbps
				}
				fill, label = heatColour(lo, hi, v), formatGbps(c.BWGbps)
			case ok:
				fill, label = "#9e9e9e", "fail"
			default:
				label = "?"
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`+"\n", x, y, heatCell, heatCell, fill)
			if label != "" {
				fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x+heatCell/2, y+heatCell/2+4, esc(label))
			}
		}
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// colourScale returns the range colours span: 0 to 1 of the line rate
// when every measured pair has one, else the fleet's lowest to highest.
func (m *Matrix) colourScale() (lo, hi float64, byRate bool) {
	byRate = true
	first := true
	for _, c := range m.Cells {
		if !c.OK {
			continue
		}
		if c.LineRateGbps <= 0 {
			byRate = false
		}
		if first || c.BWGbps < lo {
			lo = c.BWGbps
		}
		if first || c.BWGbps > hi {
			hi = c.BWGbps
		}
		first = false
	}
	if byRate && !first {
		return 0, 1, true
	}
	return lo, hi, false
}

func scaleNote(byRate bool) string {
	if byRate {
		return "red 0, green at line rate"
	}
	return "red slowest, green fastest pair"
}

// heatColour maps v in [lo, hi] from red through yellow to green.
func heatColour(lo, hi, v float64) string {
	t := 1.0
	if hi > lo {
		t = (v - lo) / (hi - lo)
	}
	t = max(0, min(1, t))
	r, g := 230.0, 230.0
	if t < 0.5 {
		g = 60 + 340*t
	} else {
		r = 230 - 340*(t-0.5)
	}
	return fmt.Sprintf("#%02x%02x50", int(r), int(g))
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
