package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabels is a plot.Plotter that labels points without letting the
// labels overlap each other, the labelled points or the edges of the data
// area: each label takes the first free place among candidates right,
// left, above and below its point, then further away in rows, with a thin
// leader line when it ends up away from its point. Placement depends only
// on the data and the canvas size, so renders are deterministic.
type pointLabels struct {
	xys    plotter.XYs
	labels []string
	style  labelText
	// avoid are extra points (data coordinates) labels keep clear of.
	avoid plotter.XYs
	// hbars are horizontal error bars (data coordinates: from X0 to X1 at
	// Y) labels keep clear of.
	hbars []hbar
}

type hbar struct{ x0, x1, y float64 }

type labelText struct {
	size  vg.Length
	color color.Color
	// background fills a translucent white box behind the text, for
	// labels over coloured areas.
	background bool
}

type rect struct{ x0, y0, x1, y1 vg.Length }

func (a rect) overlaps(b rect) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

func (a rect) inside(c draw.Canvas) bool {
	return a.x0 >= c.Min.X && a.x1 <= c.Max.X && a.y0 >= c.Min.Y && a.y1 <= c.Max.Y
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ts := textStyle(l.style.size)
	if l.style.color != nil {
		ts.Color = l.style.color
	}
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YBottom
	h := ts.Height("M")
	gap := vg.Points(6)
	var taken []rect
	mark := func(x, y float64) {
		px, py := trX(x), trY(y)
		r := vg.Points(4)
		taken = append(taken, rect{px - r, py - r, px + r, py + r})
	}
	for _, xy := range l.xys {
		mark(xy.X, xy.Y)
	}
	for _, xy := range l.avoid {
		mark(xy.X, xy.Y)
	}
	for _, b := range l.hbars {
		y, r := trY(b.y), vg.Points(4)
		taken = append(taken, rect{trX(b.x0) - 1, y - r, trX(b.x1) + 1, y + r})
	}
	for i, xy := range l.xys {
		px, py := trX(xy.X), trY(xy.Y)
		w := ts.Width(l.labels[i])
		var cands []rect
		for k := 0; k < 8; k++ {
			dy := vg.Length(k) * h * 1.1
			for _, sgn := range []vg.Length{1, -1} {
				if k == 0 && sgn < 0 {
					continue
				}
				y0 := py - h/2 + sgn*dy
				cands = append(cands,
					rect{px + gap, y0, px + gap + w, y0 + h},
					rect{px - gap - w, y0, px - gap, y0 + h})
			}
			if k == 1 {
				cands = append(cands,
					rect{px - w/2, py + gap, px + w/2, py + gap + h},
					rect{px - w/2, py - gap - h, px + w/2, py - gap})
			}
		}
		chosen := cands[0]
		for _, r := range cands {
			if !r.inside(c) {
				continue
			}
			free := true
			for _, t := range taken {
				if r.overlaps(t) {
					free = false
					break
				}
			}
			if free {
				chosen = r
				break
			}
		}
		taken = append(taken, chosen)
		cy := (chosen.y0 + chosen.y1) / 2
		if d := cy - py; d > h || d < -h {
			// Leader line from the point to the label's near edge.
			x := chosen.x0
			if chosen.x1 < px {
				x = chosen.x1
			}
			c.StrokeLine2(draw.LineStyle{Color: color.Gray{0x80}, Width: vg.Points(0.5)}, px, py, x, cy)
		}
		if l.style.background {
			pad := vg.Points(2)
			var bg vg.Path
			bg.Move(vg.Point{X: chosen.x0 - pad, Y: chosen.y0 - pad})
			bg.Line(vg.Point{X: chosen.x1 + pad, Y: chosen.y0 - pad})
			bg.Line(vg.Point{X: chosen.x1 + pad, Y: chosen.y1 + pad})
			bg.Line(vg.Point{X: chosen.x0 - pad, Y: chosen.y1 + pad})
			bg.Close()
			c.SetColor(color.NRGBA{0xff, 0xff, 0xff, 0xd0})
			c.Fill(bg)
		}
		c.FillText(ts, vg.Point{X: chosen.x0, Y: chosen.y0}, l.labels[i])
	}
}
