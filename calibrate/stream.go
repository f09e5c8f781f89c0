package calibrate

import (
	"maps"
	"runtime/debug"
	"slices"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/model"
)

// StreamMaxBytes caps the weights of StreamWorkload in a full
// calibration: the full calibration's own cap (dispatch.DefaultMaxBytes,
// 1.5 GiB).
const StreamMaxBytes = dispatch.DefaultMaxBytes

// StreamWorkload is w with its routed experts' weights in f32 (32 bits a
// weight, 2 ops a token: about a quarter of a Q8_0 weight's ops per byte), named
// w's name and "-f32", with as many layers as give its expert weights at
// least w's (which Steps sizes to twice the last-level cache), at most as
// many as fit in maxBytes; nil for a workload without routed experts, or
// where one layer of it is larger than maxBytes.
//
// Why: a decode-like run's time is its loads at the engine's cap plus the
// compute the overlap does not hide (sim/burst.go), so a Q8_0 walk, whose
// compute is about as long as its loads on an x86 core, fixes the cap
// only together with mem_compute_overlap. The full calibrations of the
// 2-vCPU build VM identified the caps within 10% only where the fit put
// the overlap at its bound (σ 8.5-9.2%) and not where it left it free
// (14-17%; docs/busy-machine.md). An f32 walk's compute is a few times
// shorter than its loads: the same runs measure the cap nearly alone.
// Measured here (quiet, 2026-12-03, one thread, pp64 ub=2, 1.05 GB of
// Q8_0/Q4_0 weights against 1.16 GB of f32): 515-540 t/s on the
// calibration workload, 1310-1421 t/s on this one; in two full
// calibrations since, the fitted model had the f32 runs 85-86%
// memory-bound, and the caps within 3.2% (11-12% from the same files
// without them; docs/busy-machine.md, TestRecordedFullF32Caps).
func StreamWorkload(w *model.Workload, maxBytes int64) *model.Workload {
	if w == nil || w.Model.MoE.Experts == 0 || w.Model.MoE.TopK == 0 {
		return nil
	}
	s := *w
	s.Name = w.Name + "-f32"
	s.Model.BitsPerWeight.ExpertsUp, s.Model.BitsPerWeight.ExpertsDown = 32, 32
	if w.Model.Types != nil {
		s.Model.Types = maps.Clone(w.Model.Types)
		for _, k := range []string{"experts_gate_up", "experts_down"} {
			if _, ok := s.Model.Types[k]; ok {
				s.Model.Types[k] = string(model.ClassF32) // ggml's f32 type, named as its kernel class
			}
		}
	}
	main, _ := dispatch.LayerBytes(w)
	expert, all := dispatch.LayerBytes(&s)
	if expert <= 0 || all <= 0 || all > maxBytes {
		return nil
	}
	moe := int64(w.Model.Layers - w.Model.MoE.DenseLayers)
	layers := max(1, (moe*main+expert-1)/expert)
	s.Model.Layers = int(min(layers, maxBytes/all))
	s.Model.MoE.DenseLayers = 0
	return &s
}

// resident holds the dispatcher grid's weights, of one workload at a
// time: the workload's own and its f32 variant (StreamWorkload) are never
// both resident. Each is built when a step first needs it, after the
// other one has been dropped; dispatch.NewModel then hands the dropped
// one's memory back to the system before allocating, so a calibration's
// resident set holds the larger of the two, not their sum (the f32
// weights beside the Q8_0 ones took a full calibration of the 2-vCPU
// build VM to 4.4 GiB: docs/busy-machine.md).
type resident struct {
	slots []**dispatch.Model
}

// modelBuilt, when not nil, is told of each model resident.get builds
// (tests).
var modelBuilt func(w *model.Workload, m *dispatch.Model)

// get is the model in slot, built for w when the slot is empty, after
// every other slot is emptied.
func (r *resident) get(slot **dispatch.Model, w *model.Workload) (*dispatch.Model, error) {
	if *slot != nil {
		return *slot, nil
	}
	for _, o := range r.slots {
		if o != slot {
			*o = nil
		}
	}
	m, err := dispatch.NewModel(w, 1)
	if err != nil {
		return nil, err
	}
	*slot = m
	if modelBuilt != nil {
		modelBuilt(w, m)
	}
	return m, nil
}

// drop releases whatever weights r holds (nil: none): once a
// calibration's steps are taken, before its fit, whose heap the collector
// would otherwise let grow to twice the weights' size.
func (r *resident) drop() {
	if r == nil {
		return
	}
	for _, o := range r.slots {
		*o = nil
	}
	debug.FreeOSMemory()
}

// groupStream moves the f32 points (Point.Stream) of one round's order
// next to its first one, the others keeping their order: each round then
// builds the f32 weights once, runs its f32 points together and drops
// them, instead of swapping weights at each f32 point.
func groupStream(ps []Point) {
	first := slices.IndexFunc(ps, func(p Point) bool { return p.Stream })
	if first < 0 {
		return
	}
	var stream, rest []Point
	for _, p := range ps[first:] {
		if p.Stream {
			stream = append(stream, p)
		} else {
			rest = append(rest, p)
		}
	}
	copy(ps[first:], append(stream, rest...))
}
