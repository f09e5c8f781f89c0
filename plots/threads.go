package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Threads draws a thread sweep: prompt and generated t/s against the
// pool's thread count (-t), one line per set of clusters, the split
// dispatcher's best plan of each phase as a dashed level, and each phase's
// recommended pool marked.
func Threads(t *predict.ThreadsSweep) (*Figure, error) {
	if t == nil || len(t.Rows) == 0 {
		return nil, errors.New("plots: a thread sweep with no rows")
	}
	fig := &Figure{Title: fmt.Sprintf("%s on %s%s: one llama.cpp thread pool by -t and clusters", t.Workload, t.SoC, t.BusyText())}
	colors := []color.Color{blue, vermillion, orange, skyBlue, bluishGreen, reddishPurple}
	masks := []string{}
	for _, r := range t.Rows {
		if !strings.HasPrefix(r.Mask, "split") && !slices.Contains(masks, r.Mask) {
			masks = append(masks, r.Mask)
		}
	}
	for pi, phase := range []struct {
		name string
		tps  func(predict.ThreadsRow) float64
		best predict.ThreadsRow
	}{
		{t.PP, func(r predict.ThreadsRow) float64 { return r.PPTPS }, t.BestPP},
		{t.TG, func(r predict.ThreadsRow) float64 { return r.TGTPS }, t.BestTG},
	} {
		p := plot.New()
		p.Y.Label.Text = phase.name + " t/s"
		p.X.Label.Text = "threads (-t)"
		p.Add(plotter.NewGrid())
		ymax := 0.0
		for mi, m := range masks {
			var xys plotter.XYs
			for _, r := range t.Rows {
				if r.Mask == m {
					xys = append(xys, plotter.XY{X: float64(r.Threads), Y: phase.tps(r)})
					ymax = math.Max(ymax, phase.tps(r))
				}
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = colors[mi%len(colors)], vg.Points(2)
			if m == "unpinned" {
				// Where the OS puts -t N: dashed, over the pinned pools.
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			pts.Color, pts.Shape = l.Color, draw.CircleGlyph{}
			p.Add(l, pts)
			if pi == 0 {
				fig.Legend = append(fig.Legend, LegendEntry{m, l})
			}
		}
		for _, r := range t.Rows {
			if v := phase.tps(r); strings.HasPrefix(r.Mask, "split") && v > 0 {
				l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: v}, {X: float64(maxThreads(t)), Y: v}})
				if err != nil {
					return nil, err
				}
				l.Color, l.Dashes = black, []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(l)
				fig.Legend = append(fig.Legend, LegendEntry{r.Mask, l})
				ymax = math.Max(ymax, v)
			}
		}
		b := phase.best
		sc, err := plotter.NewScatter(plotter.XYs{{X: float64(b.Threads), Y: phase.tps(b)}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		p.Add(sc)
		label := fmt.Sprintf("%s: %s, %.2f t/s", phase.name, b.Flags(t.Placement), phase.tps(b))
		fig.Legend = append(fig.Legend, LegendEntry{label, sc})
		fig.Labels = append(fig.Labels, label)
		p.Y.Min, p.Y.Max = 0, ymax*1.1
		fig.Panels = append(fig.Panels, p)
	}
	return fig, nil
}

func maxThreads(t *predict.ThreadsSweep) int {
	n := 1
	for _, r := range t.Rows {
		n = max(n, r.Threads)
	}
	return n
}
