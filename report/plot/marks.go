package plot

import (
	"image/color"
	"math"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The marks below are drawn in data units, so that a figure controls
// every shape on it; each reports its data range so the axes fit it.

// rect is a filled rectangle in data units.
type rect struct {
	X0, X1, Y0, Y1 float64
	Fill           color.Color
}

// rects draws filled rectangles: bars, shaded bands.
type rects []rect

// Plot implements gonum's Plotter.
func (rs rects) Plot(c draw.Canvas, p *gonum.Plot) {
	tx, ty := p.Transforms(&c)
	for _, r := range rs {
		x0, x1, y0, y1 := tx(r.X0), tx(r.X1), ty(r.Y0), ty(r.Y1)
		var path vg.Path
		path.Move(vg.Point{X: x0, Y: y0})
		path.Line(vg.Point{X: x1, Y: y0})
		path.Line(vg.Point{X: x1, Y: y1})
		path.Line(vg.Point{X: x0, Y: y1})
		path.Close()
		c.SetColor(r.Fill)
		c.Fill(path)
	}
}

// DataRange implements gonum's DataRanger.
func (rs rects) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range rs {
		xmin, xmax = math.Min(xmin, math.Min(r.X0, r.X1)), math.Max(xmax, math.Max(r.X0, r.X1))
		ymin, ymax = math.Min(ymin, math.Min(r.Y0, r.Y1)), math.Max(ymax, math.Max(r.Y0, r.Y1))
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements gonum's Thumbnailer.
func (rs rects) Thumbnail(c *draw.Canvas) {
	if len(rs) == 0 {
		return
	}
	c.SetColor(rs[0].Fill)
	c.Fill(c.Rectangle.Path())
}

// seg is a line in data units.
type seg struct{ X0, Y0, X1, Y1 float64 }

// lines draws line segments in one style; Caps adds end caps of that
// length across each segment (error bars).
type lines struct {
	Segs  []seg
	Style draw.LineStyle
	Caps  vg.Length
	// NoRange leaves the segments out of the axes' range (a marker line
	// that spans whatever the data spans).
	NoRange bool
}

// Plot implements gonum's Plotter.
func (l lines) Plot(c draw.Canvas, p *gonum.Plot) {
	tx, ty := p.Transforms(&c)
	for _, s := range l.Segs {
		a, b := vg.Point{X: tx(s.X0), Y: ty(s.Y0)}, vg.Point{X: tx(s.X1), Y: ty(s.Y1)}
		c.StrokeLine2(l.Style, a.X, a.Y, b.X, b.Y)
		if l.Caps > 0 {
			dx, dy := b.X-a.X, b.Y-a.Y
			n := vg.Length(math.Hypot(float64(dx), float64(dy)))
			if n == 0 {
				continue
			}
			ux, uy := -dy/n*l.Caps/2, dx/n*l.Caps/2
			for _, e := range []vg.Point{a, b} {
				c.StrokeLine2(l.Style, e.X-ux, e.Y-uy, e.X+ux, e.Y+uy)
			}
		}
	}
}

// DataRange implements gonum's DataRanger.
func (l lines) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	if l.NoRange {
		return
	}
	for _, s := range l.Segs {
		xmin, xmax = math.Min(xmin, math.Min(s.X0, s.X1)), math.Max(xmax, math.Max(s.X0, s.X1))
		ymin, ymax = math.Min(ymin, math.Min(s.Y0, s.Y1)), math.Max(ymax, math.Max(s.Y0, s.Y1))
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements gonum's Thumbnailer.
func (l lines) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// pt is a point in data units.
type pt struct{ X, Y float64 }

// dots draws one glyph per point.
type dots struct {
	Pts   []pt
	Glyph draw.GlyphStyle
}

// Plot implements gonum's Plotter.
func (d dots) Plot(c draw.Canvas, p *gonum.Plot) {
	tx, ty := p.Transforms(&c)
	for _, q := range d.Pts {
		c.DrawGlyph(d.Glyph, vg.Point{X: tx(q.X), Y: ty(q.Y)})
	}
}

// DataRange implements gonum's DataRanger.
func (d dots) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range d.Pts {
		xmin, xmax = math.Min(xmin, q.X), math.Max(xmax, q.X)
		ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements gonum's GlyphBoxer, so that no glyph is cut at the
// data area's edge.
func (d dots) GlyphBoxes(p *gonum.Plot) []gonum.GlyphBox {
	bs := make([]gonum.GlyphBox, len(d.Pts))
	for i, q := range d.Pts {
		bs[i] = gonum.GlyphBox{X: p.X.Norm(q.X), Y: p.Y.Norm(q.Y), Rectangle: d.Glyph.Rectangle()}
	}
	return bs
}

// Thumbnail implements gonum's Thumbnailer.
func (d dots) Thumbnail(c *draw.Canvas) { c.DrawGlyph(d.Glyph, c.Center()) }

// polyline draws points joined by lines, with a glyph at each.
type polyline struct {
	Pts   []pt
	Style draw.LineStyle
	Glyph draw.GlyphStyle
}

// Plot implements gonum's Plotter.
func (l polyline) Plot(c draw.Canvas, p *gonum.Plot) {
	tx, ty := p.Transforms(&c)
	ps := make([]vg.Point, len(l.Pts))
	for i, q := range l.Pts {
		ps[i] = vg.Point{X: tx(q.X), Y: ty(q.Y)}
	}
	c.StrokeLines(l.Style, c.ClipLinesXY(ps)...)
	for _, q := range ps {
		c.DrawGlyph(l.Glyph, q)
	}
}

// DataRange implements gonum's DataRanger.
func (l polyline) DataRange() (xmin, xmax, ymin, ymax float64) { return dots{Pts: l.Pts}.DataRange() }

// GlyphBoxes implements gonum's GlyphBoxer.
func (l polyline) GlyphBoxes(p *gonum.Plot) []gonum.GlyphBox {
	return dots{Pts: l.Pts, Glyph: l.Glyph}.GlyphBoxes(p)
}

// Thumbnail implements gonum's Thumbnailer.
func (l polyline) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
	c.DrawGlyph(l.Glyph, c.Center())
}

// lineStyle is a solid line of width w in colour col.
func lineStyle(col color.Color, w vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: col, Width: w}
}

// dashed is a dashed line in colour col.
func dashed(col color.Color) draw.LineStyle {
	return draw.LineStyle{Color: col, Width: 1, Dashes: []vg.Length{4, 3}}
}

// glyph is a glyph of shape i (circle, triangle, ...) in colour col.
func glyph(col color.Color, shape draw.GlyphDrawer, r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Color: col, Radius: r, Shape: shape}
}

var (
	grey      = color.Gray{Y: 110}
	lightGrey = color.Gray{Y: 225}
	runColor  = color.RGBA{R: 20, G: 20, B: 20, A: 255}
)

// light returns c mixed with white, for bars under darker marks.
func light(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((float64(v>>8) + 2*255) / 3) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}

// dark returns c mixed with black, for dots over bars of colour c.
func dark(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(float64(v>>8) * 0.6) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}
