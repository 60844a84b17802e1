package plot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// box is an axis-aligned rectangle in points.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box, tol float64) bool {
	return a.x0+tol < b.x1 && b.x0+tol < a.x1 && a.y0+tol < b.y1 && b.y0+tol < a.y1
}

// textBox is one string drawn on a recorder, with its bounding box.
type textBox struct {
	text string
	box
}

// affine is a 2-D transform: x' = a*x + c*y + e, y' = b*x + d*y + f.
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

func (m affine) then(n affine) affine { // m applied after n: m∘n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

// recorder is a vg.Canvas that draws nothing and keeps the box of every
// text and every filled or stroked shape, the way vgsvg would place them.
type recorder struct {
	w, h  vg.Length
	m     affine
	stack []affine
	texts []textBox
	fills []box // filled paths (bars, glyphs, backgrounds)
	segs  [][4]float64
}

func newRecorder(w, h vg.Length) *recorder {
	return &recorder{w: w, h: h, m: affine{a: 1, d: 1}}
}

func (r *recorder) Size() (vg.Length, vg.Length)        { return r.w, r.h }
func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(color.Color)                {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *recorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recorder) Pop()                                { r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recorder) Rotate(t float64) {
	s, c := math.Sincos(t)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
}
func (r *recorder) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: float64(p.X), f: float64(p.Y)})
}
func (r *recorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, d: y}) }

func (r *recorder) points(p vg.Path) [][2]float64 {
	var ps [][2]float64
	for _, c := range p {
		switch c.Type {
		case vg.MoveComp, vg.LineComp:
			x, y := r.m.apply(float64(c.Pos.X), float64(c.Pos.Y))
			ps = append(ps, [2]float64{x, y})
		case vg.ArcComp:
			for _, a := range []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2} {
				x, y := r.m.apply(float64(c.Pos.X)+float64(c.Radius)*math.Cos(a), float64(c.Pos.Y)+float64(c.Radius)*math.Sin(a))
				ps = append(ps, [2]float64{x, y})
			}
		}
	}
	return ps
}

func bounds(ps [][2]float64) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range ps {
		b = box{math.Min(b.x0, p[0]), math.Min(b.y0, p[1]), math.Max(b.x1, p[0]), math.Max(b.y1, p[1])}
	}
	return b
}

func (r *recorder) Fill(p vg.Path) {
	if ps := r.points(p); len(ps) > 0 {
		r.fills = append(r.fills, bounds(ps))
	}
}

func (r *recorder) Stroke(p vg.Path) {
	ps := r.points(p)
	for i := 1; i < len(ps); i++ {
		r.segs = append(r.segs, [4]float64{ps[i-1][0], ps[i-1][1], ps[i][0], ps[i][1]})
	}
}

func (r *recorder) FillString(f font.Face, p vg.Point, s string) {
	e := f.Extents()
	w := float64(f.Width(s))
	x, y := float64(p.X), float64(p.Y)
	var ps [][2]float64
	for _, c := range [][2]float64{{x, y - float64(e.Descent)}, {x + w, y - float64(e.Descent)}, {x, y + float64(e.Ascent)}, {x + w, y + float64(e.Ascent)}} {
		X, Y := r.m.apply(c[0], c[1])
		ps = append(ps, [2]float64{X, Y})
	}
	r.texts = append(r.texts, textBox{s, bounds(ps)})
}

// segHitsBox reports whether the segment crosses the inside of b (shrunk
// by tol).
func segHitsBox(s [4]float64, b box, tol float64) bool {
	b = box{b.x0 + tol, b.y0 + tol, b.x1 - tol, b.y1 - tol}
	if b.x0 >= b.x1 || b.y0 >= b.y1 {
		return false
	}
	// Liang–Barsky clipping.
	x0, y0, dx, dy := s[0], s[1], s[2]-s[0], s[3]-s[1]
	t0, t1 := 0.0, 1.0
	for _, pq := range [][2]float64{{-dx, x0 - b.x0}, {dx, b.x1 - x0}, {-dy, y0 - b.y0}, {dy, b.y1 - y0}} {
		p, q := pq[0], pq[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
	}
	return t0 < t1
}

// layoutProblems draws f on a recorder and lists every text, shape or
// line cut at the edge, every two texts that overlap, and every text over a line or a
// filled shape other than the background.
func layoutProblems(f *frame) []string {
	r := newRecorder(Width, f.height())
	f.draw(draw.New(r))
	var probs []string
	W, H := float64(Width), float64(f.height())
	for i, p := range f.panels {
		// The data area keeps a third of the panel's share.
		total := 0.0
		for _, q := range f.panels {
			total += q.weight
		}
		share := float64(Width-2*pad-f.notesWidth()) * p.weight / total
		dc := p.p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: vg.Length(share) - panelMargin, Y: f.plotH}}})
		if w := float64(dc.Max.X - dc.Min.X); w < share/3 || w < 60 {
			probs = append(probs, fmt.Sprintf("panel %d: data area %.0f pt of %.0f", i, w, share))
		}
	}
	out := func(b box) bool { return b.x0 < -0.5 || b.y0 < -0.5 || b.x1 > W+0.5 || b.y1 > H+0.5 }
	for _, b := range r.fills {
		if out(b) {
			probs = append(probs, fmt.Sprintf("shape %v cut at the edge of %vx%v", b, W, H))
		}
	}
	for _, s := range r.segs {
		if out(box{math.Min(s[0], s[2]), math.Min(s[1], s[3]), math.Max(s[0], s[2]), math.Max(s[1], s[3])}) {
			probs = append(probs, fmt.Sprintf("line %v cut at the edge of %vx%v", s, W, H))
		}
	}
	for i, t := range r.texts {
		if t.x0 < -0.01 || t.y0 < -0.01 || t.x1 > W+0.01 || t.y1 > H+0.01 {
			probs = append(probs, fmt.Sprintf("text %q cut at the edge: %v in %vx%v", t.text, t.box, W, H))
		}
		for _, u := range r.texts[i+1:] {
			if t.overlaps(u.box, 0.5) {
				probs = append(probs, fmt.Sprintf("texts %q %v and %q %v overlap", t.text, t.box, u.text, u.box))
			}
		}
		for _, b := range r.fills[1:] { // [0] is the frame's white background
			if t.overlaps(b, 1) {
				probs = append(probs, fmt.Sprintf("text %q %v over a shape %v", t.text, t.box, b))
				break
			}
		}
		for _, s := range r.segs {
			// 1 pt: a tick mark ends within the empty top of its
			// label's ascent box.
			if segHitsBox(s, t.box, 1) {
				probs = append(probs, fmt.Sprintf("text %q %v over a line %v", t.text, t.box, s))
				break
			}
		}
	}
	return probs
}

// TestRecorderFindsOverlap checks the checker: two texts at one place and
// a text over a line are found.
func TestRecorderFindsOverlap(t *testing.T) {
	r := newRecorder(100, 100)
	c := draw.New(r)
	sty := textStyle(textSize)
	c.FillText(sty, vg.Point{X: 10, Y: 10}, "hello")
	c.FillText(sty, vg.Point{X: 14, Y: 12}, "world")
	if len(r.texts) != 2 || !r.texts[0].overlaps(r.texts[1].box, 0.5) {
		t.Fatalf("texts %v: want two overlapping", r.texts)
	}
	if b := r.texts[0].box; b.x1-b.x0 < 15 || b.x1-b.x0 > 30 {
		t.Errorf("width of %q at %vpt: %v, want 15–30 pt", "hello", textSize, b.x1-b.x0)
	}
	if !segHitsBox([4]float64{0, 12, 100, 12}, r.texts[0].box, 0.5) {
		t.Error("a line through the text is not found")
	}
	if segHitsBox([4]float64{0, 50, 100, 50}, r.texts[0].box, 0.5) {
		t.Error("a line far from the text is found")
	}
	rot := newRecorder(100, 100)
	sty.Rotation = math.Pi / 2
	rc := draw.New(rot)
	rc.FillText(sty, vg.Point{X: 50, Y: 50}, "hello")
	if b := rot.texts[0].box; b.y1-b.y0 < 15 || b.x1-b.x0 > 14 {
		t.Errorf("rotated text box %v: want tall and narrow", b)
	}
}
