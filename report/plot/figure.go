package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rocekit/rocekit/report"
)

// Figure is one drawn picture: its SVG and what it shows.
type Figure struct {
	// Name is the file name without extension: "bandwidth", "cpu-A".
	Name string
	// Title is the picture's title, as drawn on it.
	Title string
	// Caption says in a sentence what the picture shows and how to read it.
	Caption string
	// SVG is the picture, a whole SVG document.
	SVG []byte

	frame *frame // kept to render PNGs and check the layout
}

// Width is the width of every figure.
const Width = 16 * vg.Centimeter

// The text sizes of a figure.
const (
	titleSize = 11
	textSize  = 9
	pad       = vg.Length(6)
	rowHeight = vg.Length(18) // a round's row in row-per-round figures
)

// sans is the font of every text: Liberation Sans, metric-compatible with
// Arial and Helvetica, which the SVG names as fallbacks.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// fontFamily is what vgsvg writes for sans, and fontFallback what the SVG
// says instead, so that a viewer without Liberation Sans uses a font of
// the same widths.
const (
	fontFamily   = "font-family:Liberation Sans;"
	fontFallback = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// textStyle is a text style in sans at size points.
func textStyle(size float64) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, vg.Length(size)), Handler: gonum.DefaultTextHandler}
}

// newPlot returns a plot whose texts are all sans at textSize, with grid
// lines left out.
func newPlot() *gonum.Plot {
	p := gonum.New()
	for _, a := range []*gonum.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = textStyle(textSize)
		a.Tick.Label = textStyle(textSize - 1)
		a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
	}
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Legend.TextStyle = textStyle(textSize)
	p.BackgroundColor = nil // the frame fills the background
	return p
}

// color returns the i-th colour of the palette.
func colorOf(i int) color.Color { return plotutil.Color(i) }

// panel is one plot of a figure with its share of the width.
type panel struct {
	p      *gonum.Plot
	weight float64
}

// note is a text beside a row of a row-per-round figure, at data value Y
// of the last panel.
type note struct {
	Y    float64
	Text string
}

// legendEntry is one line of the legend under the plot.
type legendEntry struct {
	Label string
	Thumb gonum.Thumbnailer
}

// frame lays a figure out: the title on top, the panels side by side, a
// column of notes right of the last panel (one per row), the legend and
// footnotes under it. Nothing is drawn over the data area but the data.
type frame struct {
	title     string
	panels    []panel
	notes     []note
	legend    []legendEntry
	footnotes []string
	plotH     vg.Length // height of the panels
}

// height is the whole figure's height.
func (f *frame) height() vg.Length {
	h := pad + titleHeight() + pad + f.plotH + pad
	h += vg.Length(len(f.legendRows())) * lineHeight()
	h += vg.Length(len(f.footnotes)) * lineHeight()
	return h + pad
}

func titleHeight() vg.Length { return textStyle(titleSize).Height("Xg") }

func lineHeight() vg.Length { return textStyle(textSize).Height("Xg") + 3 }

// legendRows arranges the legend in rows of columns as wide as the widest
// entry.
func (f *frame) legendRows() [][]legendEntry {
	if len(f.legend) == 0 {
		return nil
	}
	// Entries wider than half the figure get a row each, after the
	// others, so that one long entry does not make every row one column.
	sty := textStyle(textSize)
	half := (Width-2*pad)/2 - thumbW - 16
	var narrow, wide []legendEntry
	widest := vg.Length(0)
	for _, e := range f.legend {
		w := sty.Width(e.Label)
		if w > half {
			wide = append(wide, e)
			continue
		}
		narrow = append(narrow, e)
		widest = max(widest, w)
	}
	colW := thumbW + 4 + widest + 12
	cols := max(1, int((Width-2*pad)/colW))
	var rows [][]legendEntry
	for i := 0; i < len(narrow); i += cols {
		rows = append(rows, narrow[i:min(i+cols, len(narrow))])
	}
	for i := range wide {
		rows = append(rows, wide[i:i+1])
	}
	return rows
}

const thumbW = vg.Length(14)

// panelMargin is the space right of each panel.
const panelMargin = vg.Length(16)

// notesWidth is the width of the notes column.
func (f *frame) notesWidth() vg.Length {
	if len(f.notes) == 0 {
		return 0
	}
	sty := textStyle(textSize)
	w := vg.Length(0)
	for _, n := range f.notes {
		w = max(w, sty.Width(n.Text))
	}
	return min(w+2*pad, maxNotesWidth)
}

// maxNotesWidth caps the notes column; longer notes are cut with "…".
const maxNotesWidth = Width * 0.3

// draw draws the figure on c.
func (f *frame) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	top := c.Max.Y - pad
	ts := textStyle(titleSize)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, fitText(ts, f.title, Width-2*pad))
	top -= titleHeight() + pad
	area := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Min.X + pad, Y: top - f.plotH},
		Max: vg.Point{X: c.Max.X - pad - f.notesWidth(), Y: top}}}
	total := 0.0
	for _, p := range f.panels {
		total += p.weight
	}
	x := area.Min.X
	var last draw.Canvas
	for _, p := range f.panels {
		w := (area.Max.X - area.Min.X) * vg.Length(p.weight/total)
		// The right margin takes the half of the last x tick label
		// that gonum centres beyond the axis end.
		pc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: area.Min.Y}, Max: vg.Point{X: x + w - panelMargin, Y: area.Max.Y}}}
		p.p.Draw(pc)
		last = pc
		x += w
	}
	f.drawNotes(c, last, area.Max.X)
	y := area.Min.Y - pad
	f.drawLegend(c, y)
	y -= vg.Length(len(f.legendRows())) * lineHeight()
	sty := textStyle(textSize)
	sty.YAlign = draw.YTop
	for _, l := range f.footnotes {
		c.FillText(sty, vg.Point{X: c.Min.X + pad, Y: y}, fitText(sty, l, Width-2*pad))
		y -= lineHeight()
	}
}

// drawNotes writes each note level with its row of the last panel.
func (f *frame) drawNotes(c, last draw.Canvas, x vg.Length) {
	if len(f.notes) == 0 || len(f.panels) == 0 {
		return
	}
	p := f.panels[len(f.panels)-1].p
	dc := p.DataCanvas(last)
	_, ty := p.Transforms(&dc)
	sty := textStyle(textSize)
	sty.YAlign = draw.YCenter
	for _, n := range f.notes {
		c.FillText(sty, vg.Point{X: x, Y: ty(n.Y)}, fitText(sty, n.Text, maxNotesWidth-pad))
	}
}

// drawLegend draws the legend rows from y down.
func (f *frame) drawLegend(c draw.Canvas, y vg.Length) {
	rows := f.legendRows()
	if len(rows) == 0 {
		return
	}
	sty := textStyle(textSize)
	sty.YAlign = draw.YCenter
	colW := (Width - 2*pad) / vg.Length(len(rows[0]))
	for _, row := range rows {
		if len(row) == 1 {
			colW = Width - 2*pad
		}
		mid := y - lineHeight()/2
		for i, e := range row {
			x := c.Min.X + pad + vg.Length(i)*colW
			h := sty.Height("X")
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: mid - h/2}, Max: vg.Point{X: x + thumbW, Y: mid + h/2}}}
			e.Thumb.Thumbnail(&tc)
			c.FillText(sty, vg.Point{X: x + thumbW + 4, Y: mid}, fitText(sty, e.Label, colW-thumbW-8))
		}
		y -= lineHeight()
	}
}

// fitText cuts s with "…" so that it is at most w wide.
func fitText(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && sty.Width(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// render draws the frame as SVG.
func (f *frame) render() ([]byte, error) {
	c := vgsvg.New(Width, f.height())
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plot: svg: %w", err)
	}
	return []byte(strings.ReplaceAll(b.String(), fontFamily, fontFallback)), nil
}

// figure renders f into a Figure.
func (f *frame) figure(name, caption string) (Figure, error) {
	svg, err := f.render()
	if err != nil {
		return Figure{}, err
	}
	return Figure{Name: name, Title: f.title, Caption: caption, SVG: svg, frame: f}, nil
}

// PNG renders the figure as a PNG image at dpi dots per inch, for
// looking at it where SVG does not show.
//
// Similar to: rsvg-convert figure.svg -o figure.png
func (fig Figure) PNG(dpi float64) ([]byte, error) {
	if fig.frame == nil {
		return nil, fmt.Errorf("%w: figure %q has no drawing", report.ErrNoData, fig.Name)
	}
	c := vgimg.NewWith(vgimg.UseWH(Width, fig.frame.height()), vgimg.UseDPI(int(dpi)))
	fig.frame.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plot: png: %w", err)
	}
	return b.Bytes(), nil
}
