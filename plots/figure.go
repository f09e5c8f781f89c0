package plots

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is a title, a legend row under it and one or more plots stacked
// top to bottom with their data areas aligned (same width, same x position).
// The legend is drawn outside the plots, so it never hides data.
type Figure struct {
	Title  string
	Legend []LegendEntry
	// Panels are drawn top to bottom in equal heights, unless Heights
	// gives their relative heights (one per panel).
	Panels  []*plot.Plot
	Heights []float64
	// Labels are the text labels drawn inside the panels, as their
	// builders record them (see Texts).
	Labels []string
}

// LegendEntry is one legend item: a thumbnail and its label.
type LegendEntry struct {
	Label string
	Thumb plot.Thumbnailer
}

var _ Drawer = (*Figure)(nil)

const (
	thumbW   = vg.Length(18)
	thumbGap = vg.Length(4)
	entryGap = vg.Length(12)
	margin   = vg.Length(6)
)

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// Draw implements Drawer.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	top := c.Max.Y - margin
	if f.Title != "" {
		ts := titleStyle()
		for _, line := range titleLines(f.Title, c.Max.X-c.Min.X-2*margin) {
			c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, line)
			top -= ts.Height(line)
		}
		top -= margin
	}
	if len(f.Legend) > 0 {
		top = f.drawLegend(c, top) - margin
	}
	body := c
	body.Max.Y = top
	f.drawPanels(body)
}

func titleStyle() text.Style {
	ts := textStyle(12)
	ts.XAlign = draw.XCenter
	return ts
}

// titleLines breaks a title into lines no wider than width, at spaces
// (after a comma or colon where it can, so a clause stays whole), so
// that a long title is never cut off at the figure's edges. A single
// word wider than width is a line of its own.
func titleLines(title string, width vg.Length) []string {
	ts := titleStyle()
	if ts.Width(title) <= width {
		return []string{title}
	}
	words := strings.Fields(title)
	var lines []string
	for len(words) > 0 {
		n, clause := 1, 0 // words on this line; the last fit ending a clause
		for n < len(words) && ts.Width(strings.Join(words[:n+1], " ")) <= width {
			n++
			if w := words[n-1]; strings.HasSuffix(w, ",") || strings.HasSuffix(w, ":") {
				clause = n
			}
		}
		if n < len(words) && clause > n/2 {
			n = clause
		}
		lines = append(lines, strings.Join(words[:n], " "))
		words = words[n:]
	}
	return lines
}

// drawLegend lays the entries out in centred rows and returns the y below
// the last row.
func (f *Figure) drawLegend(c draw.Canvas, top vg.Length) vg.Length {
	ts := textStyle(10)
	h := ts.Height("M")
	avail := c.Max.X - c.Min.X - 2*margin
	var rows [][]LegendEntry
	var widths []vg.Length
	var row []LegendEntry
	var w vg.Length
	for _, e := range f.Legend {
		ew := thumbW + thumbGap + ts.Width(e.Label)
		if len(row) > 0 && w+entryGap+ew > avail {
			rows, widths = append(rows, row), append(widths, w)
			row, w = nil, 0
		}
		if len(row) > 0 {
			w += entryGap
		}
		row, w = append(row, e), w+ew
	}
	rows, widths = append(rows, row), append(widths, w)
	for i, row := range rows {
		x := (c.Min.X+c.Max.X)/2 - widths[i]/2
		for _, e := range row {
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - h*0.85},
				Max: vg.Point{X: x + thumbW, Y: top - h*0.15},
			}}
			e.Thumb.Thumbnail(&tc)
			x += thumbW + thumbGap
			c.FillText(ts, vg.Point{X: x, Y: top}, e.Label)
			x += ts.Width(e.Label) + entryGap
		}
		top -= h * 1.3
	}
	return top
}

func (f *Figure) drawPanels(c draw.Canvas) {
	n := len(f.Panels)
	if n == 0 {
		return
	}
	if len(f.Heights) != n {
		grid := make([][]*plot.Plot, n)
		for i, p := range f.Panels {
			grid[i] = []*plot.Plot{p}
		}
		cs := plot.Align(grid, draw.Tiles{Rows: n, Cols: 1, PadY: margin, PadRight: margin, PadLeft: margin / 2, PadBottom: margin / 2}, c)
		for i, p := range f.Panels {
			p.Draw(cs[i][0])
		}
		return
	}
	// Uneven heights: align the panels' left and right edges by hand
	// through plot.Align on tiles of the same height, then restack.
	var sum float64
	for _, h := range f.Heights {
		sum += h
	}
	grid := make([][]*plot.Plot, n)
	for i, p := range f.Panels {
		grid[i] = []*plot.Plot{p}
	}
	same := plot.Align(grid, draw.Tiles{Rows: n, Cols: 1, PadY: margin, PadRight: margin, PadLeft: margin / 2, PadBottom: margin / 2}, c)
	total := c.Max.Y - c.Min.Y - margin/2 - vg.Length(n-1)*margin
	y := c.Max.Y
	for i, p := range f.Panels {
		h := total * vg.Length(f.Heights[i]/sum)
		pc := same[i][0]
		pc.Max.Y, pc.Min.Y = y, y-h
		p.Draw(pc)
		y -= h + margin
	}
}

// Texts are the words a figure shows: its title, its legend's labels, and
// each panel's title, axis labels and text labels, in drawing order. Tests
// read them to check a figure says what the data says.
func (f *Figure) Texts() []string {
	out := []string{f.Title}
	for _, e := range f.Legend {
		out = append(out, e.Label)
	}
	for _, p := range f.Panels {
		out = append(out, p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	return append(out, f.Labels...)
}
