package sim

import "slices"

// splitBound adds a split op's time, from t0 to the last engine's finish,
// to the run's Bound, counted over the engines at work: at each moment,
// each engine not yet finished counts for an equal part of the moment, as
// handoff until it starts (signal, gather, wake, submit), then as DRAM
// stall, engine-cap stall and compute in its partition's mix (r.stall and
// r.cap of its busy time).
// The join after the op is handoff. An engine that has finished no longer
// counts, so near the balance point, where the engine that finishes last
// changes, the breakdown moves with the shares instead of jumping from
// one engine's mix to the other's (issue 29, contradiction 5).
func (r *runner) splitBound(t0, join float64) {
	pts := append(r.pts[:0], t0)
	for i, w := range r.working[:len(r.plan.Engines)] {
		if w {
			pts = append(pts, r.starts[i], r.finish[i])
		}
	}
	slices.Sort(pts)
	r.pts = pts
	b := &r.res.Bound
	for k := 1; k < len(pts); k++ {
		a, z := pts[k-1], pts[k]
		if z <= a || a < t0 {
			continue
		}
		active := 0
		for i, w := range r.working[:len(r.plan.Engines)] {
			if w && r.finish[i] > a {
				active++
			}
		}
		if active == 0 {
			continue
		}
		dt := (z - a) / float64(active)
		for i, w := range r.working[:len(r.plan.Engines)] {
			if !w || r.finish[i] <= a {
				continue
			}
			if z <= r.starts[i] {
				b.Handoff += dt
				continue
			}
			stall, capped := 0.0, 0.0
			if busy := r.finish[i] - r.starts[i]; busy > 0 {
				stall = min(1, r.stall[i]/busy)
				capped = min(stall, r.cap[i]/busy)
			}
			b.DRAM += dt * (stall - capped)
			b.EngineCap += dt * capped
			b.Compute += dt * (1 - stall)
		}
	}
	b.Handoff += join
}
