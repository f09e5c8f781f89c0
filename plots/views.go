package plots

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot/vg"
)

// Kind is a kind of figure.
type Kind string

// Kinds of figure, in the order a report shows them.
const (
	KindSplit    Kind = "split"
	KindTimeline Kind = "timeline"
	KindHeatmap  Kind = "heatmap"
	KindParity   Kind = "parity"
	KindRoofline Kind = "roofline"
	// KindThreads is a thread sweep (predict.Threads), not one
	// prediction's view: a report draws it last, when it has one.
	KindThreads Kind = "threads"
)

// Kinds are every kind of figure.
var Kinds = []Kind{KindSplit, KindTimeline, KindHeatmap, KindParity, KindRoofline}

// Size is the page size a kind of figure is drawn at.
func (k Kind) Size() (w, h vg.Length) {
	switch k {
	case KindSplit:
		return 6.5 * vg.Inch, 4.5 * vg.Inch
	case KindTimeline:
		return 9 * vg.Inch, 5 * vg.Inch
	case KindParity:
		return 7 * vg.Inch, 6 * vg.Inch
	case KindThreads:
		return 8 * vg.Inch, 7 * vg.Inch
	}
	return 8 * vg.Inch, 6 * vg.Inch
}

// ViewData is what the figures of a prediction are drawn from, besides
// the prediction itself: the SoC and workload it was made on, and what
// each kind needs.
type ViewData struct {
	SoC      *model.SoC
	Workload *model.Workload
	// Measured are the measurements on the split curve (split).
	Measured []predict.SplitPoint
	// WhatIf is the grid around the prediction (heatmap; see
	// predict.WhatIfOf).
	WhatIf *predict.WhatIf
	// Parity are measured against predicted (parity), LogAxes its axes.
	Parity  []predict.ParityPoint
	LogAxes bool
	// Layers limits the timeline to the first layers (0: all).
	Layers int
	// Threads is the thread sweep (threads).
	Threads *predict.ThreadsSweep
}

// errNoTraces: a timeline or roofline renders the prediction's traces.
var errNoTraces = errors.New("plots: a timeline or roofline draws the prediction's traces: predict it with Request.Traces")

// View draws the figure of kind k of prediction p (nil for a parity plot,
// which draws each measurement's own plan). It simulates nothing: a
// timeline or roofline draws p.Traces (predict.Request.Traces).
func View(k Kind, p *predict.Prediction, d ViewData) (*Figure, error) {
	if k == KindThreads {
		return Threads(d.Threads)
	}
	if d.SoC == nil || d.Workload == nil || (p == nil && k != KindParity) {
		return nil, errors.New("plots: a view needs a prediction (a parity plot aside), its SoC and its workload")
	}
	switch k {
	case KindSplit:
		sd, err := SplitOf(p, d.Measured)
		if err != nil {
			return nil, err
		}
		return SplitCurve(sd)
	case KindTimeline:
		if p.Traces == nil {
			return nil, errNoTraces
		}
		td, err := TimelineOf(d.SoC, d.Workload, p.Traces.Plan, p.Traces.Run, d.Layers)
		if err != nil {
			return nil, err
		}
		return Timeline(td)
	case KindHeatmap:
		if d.WhatIf == nil {
			return nil, errors.New("plots: a heatmap needs its what-if grid (predict.WhatIfOf)")
		}
		return Heatmap(*d.WhatIf)
	case KindParity:
		return Parity(ParityData{SoC: d.SoC.Name, Workload: d.Workload.Name, Points: d.Parity, LogAxes: d.LogAxes})
	case KindRoofline:
		if p.Traces == nil {
			return nil, errNoTraces
		}
		rd, err := RooflineOf(d.SoC, d.Workload, p.Traces.Plan, p.Traces.Native, p.Traces.Run)
		if err != nil {
			return nil, err
		}
		return Roofline(rd)
	}
	return nil, fmt.Errorf("plots: unknown kind of figure %q", k)
}

// SaveViews draws each figure of p that its data allows (a split curve
// for two CPU engines, a parity plot when there are measured points) into
// dir as KIND.png, in the order of Kinds, then the thread sweep when d has
// one, and returns the files' names.
func SaveViews(dir string, p *predict.Prediction, d ViewData) ([]string, error) {
	var names []string
	kinds := Kinds
	if d.Threads != nil {
		kinds = append(kinds[:len(kinds):len(kinds)], KindThreads)
	}
	for _, k := range kinds {
		if (k == KindSplit && !p.TwoEngine()) || (k == KindParity && d.Parity == nil) {
			continue
		}
		fig, err := View(k, p, d)
		if err != nil {
			return names, err
		}
		w, h := k.Size()
		name := string(k) + ".png"
		if err := Save(fig, filepath.Join(dir, name), w, h); err != nil {
			return names, err
		}
		names = append(names, name)
	}
	return names, nil
}
