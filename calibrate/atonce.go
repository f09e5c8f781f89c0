package calibrate

import (
	"fmt"
	"slices"
	"sync"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// What two engines share when they run at once. The model's only term for
// it is DRAM: each engine is held by its own cap (bandwidth_max_gb_s) and
// all of them together by dram.sustained_gb_s. The stream microbenchmark
// of all engines at once sets sustained DRAM's prior, but a stream is not
// the dispatcher: left wide (a quarter of its value), the prior lets the
// fit move sustained DRAM below the caps to absorb whatever else makes a
// split run slower than predicted (on the 2-vCPU build machine, 24 GB/s
// against 57 GB/s streamed at once: docs/busy-machine.md), and then no run
// of one engine alone is held by its cap, so the caps are not identified.
//
// The at-once step asks the dispatcher itself: at the grid's decode-like
// shape (Shapes), where the engines stream their experts' weights, it runs
// each engine's native pool alone, then both at once as two independent
// runs on weights of their own (no split, so no handoff between them). An
// engine that keeps its alone speed while the other runs shares no DRAM
// bandwidth worth modelling with it, and the fit then holds sustained
// DRAM to its microbenchmark (fit.AtOnceKeep).

// atOnceRepeats is how many timed repeats each of the step's runs takes,
// after one warm-up: the median of 5 as BenchmarkEnginesAtOnce, which
// this step replaces in calibrate.
const atOnceRepeats = 5

// atOnceSteps lists the at-once step of s's first two engines on the
// dispatcher's weights *mp (allocated if nil): none for one engine or a
// workload without experts. The second engine's weights are allocated for
// the step alone (a second copy: weights as large as the dispatcher's
// grid uses, freed when the step ends).
func atOnceSteps(s *Settings, mp **dispatch.Model) []Step {
	gemv, _, _ := Shapes(s.Workload)
	if len(s.Engines) < 2 || gemv == nil {
		return nil
	}
	a, b := s.Engines[0].Cluster, s.Engines[1].Cluster
	id := "atonce/" + topology.FormatCPUList(a.CPUs) + "+" + topology.FormatCPUList(b.CPUs)
	cpus := append(slices.Clone(a.CPUs), b.CPUs...)
	return []Step{on(cpus, Step{ID: id, Label: fmt.Sprintf("both engines at once, %s and %s", a.Name, b.Name), run: func() (measure.Measurement, error) {
		if *mp == nil {
			m, err := dispatch.NewModel(s.Workload, 1)
			if err != nil {
				return measure.Measurement{}, err
			}
			*mp = m
		}
		other, err := dispatch.NewModel(s.Workload, 2)
		if err != nil {
			return measure.Measurement{}, err
		}
		models := []*dispatch.Model{*mp, other}
		cs := []topology.Cluster{a, b}
		run := func(i int) (float64, error) {
			c := cs[i]
			res, err := models[i].Run(dispatch.Config{Plan: model.NewNative(c.Name, len(c.CPUs), 50),
				CPUs: map[string][]int{c.Name: c.CPUs}, Repeats: atOnceRepeats, Warmup: 1, Seed: uint64(i + 1), Run: gemv})
			if err != nil {
				return 0, fmt.Errorf("at once, %s: %w", c.Name, err)
			}
			return medianOf(res.TPS), nil
		}
		var alone, both [2]float64
		var errs [2]error
		for i := range alone {
			if alone[i], err = run(i); err != nil {
				return measure.Measurement{}, err
			}
		}
		var wg sync.WaitGroup
		for i := range both {
			wg.Go(func() { both[i], errs[i] = run(i) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return measure.Measurement{}, err
			}
		}
		return AtOnceMeasurement(id, [2]string{a.Name, b.Name}, gemv, alone, both), nil
	}})}
}

// AtOnceMeasurement is the at-once step's record: per engine its speed
// alone and at once (t/s, in its knobs), and as its value the smaller of
// the two engines' at-once speed over alone (measure.AtOnce, a fraction:
// 1 when running at once costs neither anything; each engine's in its
// knobs too).
func AtOnceMeasurement(id string, engines [2]string, run *model.Run, alone, both [2]float64) measure.Measurement {
	m := measure.Measurement{ID: id, Kind: measure.AtOnce, Unit: "fraction", Status: measure.StatusOK,
		Run:   &measure.Run{PromptTokens: run.PromptTokens, Ubatch: run.Ubatch, Depth: run.Depth},
		Knobs: map[string]string{}}
	var keep [2]float64
	for i, e := range engines {
		if alone[i] > 0 {
			keep[i] = both[i] / alone[i]
		}
		m.Knobs[e+"_alone_tps"] = fmt.Sprintf("%.4g", alone[i])
		m.Knobs[e+"_at_once_tps"] = fmt.Sprintf("%.4g", both[i])
		m.Knobs[e+"_keep"] = fmt.Sprintf("%.3f", keep[i])
	}
	m.Median = min(keep[0], keep[1])
	return m
}

// medianOf xs (not sorted in place); 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return s[n/2-1]/2 + s[n/2]/2
	}
	return s[len(s)/2]
}
