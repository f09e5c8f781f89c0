package predict

import (
	"fmt"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// Heatmap axis parameters with a meaning beyond one SoC parameter path.
const (
	// ParamDRAM is the DRAM system's sustained bandwidth in GB/s. Setting
	// it scales dram.sustained_gb_s, dram.peak_gb_s and every engine's
	// bandwidth_max_gb_s (and bandwidth_per_thread_gb_s) by the same
	// factor: faster memory lets each cluster, and each thread, pull
	// proportionally more, so the clusters' shares of the bus stay as
	// calibrated.
	ParamDRAM = "dram"
	// ParamComputeRatio is the second (little) engine's per-core matmul
	// rate for the workload's dominant kernel class over the first (big)
	// engine's (kernel_ops_per_cycle x clock). Setting it scales all of
	// the second engine's kernel_ops_per_cycle by the same factor; clocks,
	// bandwidth and scalar rates stay.
	ParamComputeRatio = "compute-ratio"
	// ParamAccelTOPS is the accelerator's effective MUL_MAT_ID throughput
	// in TOPS (sim.EffectiveTOPS for the workload's expert kernel class
	// at the plan's threads: kernel rate x clock x thread scaling x MoE
	// efficiency). Setting it scales all of the accelerator's
	// kernel_ops_per_cycle by the same factor. It needs an accelerator
	// among WhatIfOptions.Engines (the first one is varied).
	ParamAccelTOPS = "accel-tops"
)

// heatParam is one axis of the heatmap: how to read and set it.
type heatParam struct {
	name, label string
	get         func(s *model.SoC) (float64, error)
	set         func(s *model.SoC, v float64) error
	// log: default values on a geometric grid from lo to hi times the
	// studied value, drawn on a log axis.
	log    bool
	lo, hi float64
	// engine is the one engine the parameter changes ("": it changes
	// more, or what every engine shares): along such an axis, a plan
	// that runs on another engine alone (native on the main one) runs
	// the same, and a heatmap runs it once.
	engine string
	// rates: the parameter changes only engine's kernel rates, which a
	// plan that gives the engine no work never reads, so along it the
	// dispatcher alone (every share on another engine) runs the same too.
	rates bool
}

// heatEngines are the engines a heatmap splits over, by index in the
// SoC's Engines: first and second are the compute ratio's, accel the
// first accelerator's (-1: none) and accelThreads its threads.
type heatEngines struct {
	first, second, accel, accelThreads int
}

func scaleParams(s *model.SoC, k float64, paths []string) error {
	for _, p := range paths {
		v, err := s.Get(p)
		if err != nil {
			return err
		}
		if err := s.Set(p, v*k); err != nil {
			return err
		}
	}
	return nil
}

func heatParamFor(name string, s *model.SoC, w *model.Workload, he heatEngines) (heatParam, error) {
	switch name {
	case ParamDRAM:
		get := func(s *model.SoC) (float64, error) { return s.DRAM.SustainedGBs, nil }
		return heatParam{name: name, label: "DRAM sustained bandwidth (GB/s; cluster caps scaled with it)", get: get,
			set: func(s *model.SoC, v float64) error {
				if !(v > 0) || s.DRAM.SustainedGBs <= 0 {
					return fmt.Errorf("whatif: DRAM bandwidth %g GB/s is not positive", v)
				}
				paths := []string{"dram.sustained_gb_s", "dram.peak_gb_s"}
				for _, e := range s.Engines {
					paths = append(paths, "engines."+e.Name+".bandwidth_max_gb_s")
					if e.BandwidthPerThreadGBs > 0 {
						// The whole memory path scales, a thread's read
						// stream with it.
						paths = append(paths, "engines."+e.Name+".bandwidth_per_thread_gb_s")
					}
				}
				return scaleParams(s, v/s.DRAM.SustainedGBs, paths)
			}}, nil
	case ParamComputeRatio:
		if len(s.Engines) < 2 {
			return heatParam{}, fmt.Errorf("whatif: %s has one engine; a compute ratio needs two", s.Name)
		}
		class := sim.ExpertClass(w)
		get := func(s *model.SoC) (float64, error) {
			big, little := &s.Engines[he.first], &s.Engines[he.second]
			b := big.KernelOpsPerCycle[string(class)] * big.ClockGHz
			if !(b > 0) {
				return 0, fmt.Errorf("whatif: engine %s has no %s rate", big.Name, class)
			}
			return little.KernelOpsPerCycle[string(class)] * little.ClockGHz / b, nil
		}
		return heatParam{name: name,
			label:  fmt.Sprintf("%s/%s per-core matmul rate (%s, ops/cycle x GHz)", s.Engines[he.second].Name, s.Engines[he.first].Name, class),
			engine: s.Engines[he.second].Name,
			rates:  true,
			get:    get,
			set: func(s *model.SoC, v float64) error {
				r0, err := get(s)
				if err != nil {
					return err
				}
				if !(v > 0) || !(r0 > 0) {
					return fmt.Errorf("whatif: compute ratio %g is not positive", v)
				}
				e := &s.Engines[he.second]
				for k, x := range e.KernelOpsPerCycle {
					e.KernelOpsPerCycle[k] = x * v / r0
				}
				return nil
			}}, nil
	case ParamAccelTOPS:
		if he.accel < 0 {
			return heatParam{}, fmt.Errorf("whatif: %s needs an accelerator among the split's engines", ParamAccelTOPS)
		}
		class := sim.ExpertClass(w)
		get := func(s *model.SoC) (float64, error) {
			return sim.EffectiveTOPS(&s.Engines[he.accel], class, he.accelThreads), nil
		}
		return heatParam{name: name,
			label:  fmt.Sprintf("%s effective MUL_MAT_ID throughput (%s, %d cores, TOPS; log scale)", s.Engines[he.accel].Name, class, he.accelThreads),
			engine: s.Engines[he.accel].Name,
			get:    get,
			set: func(s *model.SoC, v float64) error {
				r0, _ := get(s)
				if !(v > 0) || !(r0 > 0) || !finite(v) {
					return fmt.Errorf("whatif: accelerator throughput %g TOPS is not positive", v)
				}
				e := &s.Engines[he.accel]
				for k, x := range e.KernelOpsPerCycle {
					e.KernelOpsPerCycle[k] = x * v / r0
				}
				return nil
			},
			log: true, lo: 1.0 / 32, hi: 4}, nil
	}
	if _, err := s.Get(name); err != nil {
		return heatParam{}, fmt.Errorf("whatif: %w (or use %s, %s or %s)", err, ParamDRAM, ParamComputeRatio, ParamAccelTOPS)
	}
	p := heatParam{name: name, label: name,
		get: func(s *model.SoC) (float64, error) { return s.Get(name) },
		set: func(s *model.SoC, v float64) error { return s.SetWithTypes(name, v) }}
	for _, e := range s.Engines {
		if strings.HasPrefix(name, "engines."+e.Name+".") {
			p.engine = e.Name
			p.rates = strings.HasPrefix(name, "engines."+e.Name+".kernel_ops_per_cycle.")
		}
	}
	if he.accel >= 0 && name == submitPath(s.Engines[he.accel].Name) {
		p.label = s.Engines[he.accel].Name + " submit latency per job (µs; log scale)"
		p.log, p.lo, p.hi = true, 0.25, 256
	}
	return p, nil
}

// submitPath is the parameter path of an accelerator's submit latency.
func submitPath(engine string) string { return "engines." + engine + ".submit_us" }

func axisValues(given []float64, n int, base float64, name string, p heatParam) ([]float64, error) {
	if given != nil {
		if len(given) < 2 {
			return nil, fmt.Errorf("whatif: %s needs at least two values", name)
		}
		for i, v := range given {
			if !finite(v) || (i > 0 && v <= given[i-1]) {
				return nil, fmt.Errorf("whatif: %s values are not finite and increasing at %d", name, i)
			}
			if p.log && !(v > 0) {
				return nil, fmt.Errorf("whatif: %s value %g is not positive (a log axis)", name, v)
			}
		}
		return append([]float64(nil), given...), nil
	}
	if n < 2 || n > 200 {
		return nil, fmt.Errorf("whatif: %d %s cells is outside 2..200", n, name)
	}
	if !(base > 0) || !finite(base) {
		return nil, fmt.Errorf("whatif: %s is %g at the studied SoC; give its values explicitly", name, base)
	}
	out := make([]float64, n)
	for i := range out {
		if p.log {
			out[i] = base * p.lo * math.Pow(p.hi/p.lo, float64(i)/float64(n-1))
		} else {
			out[i] = base * (0.5 + 2.5*float64(i)/float64(n-1))
		}
	}
	return out, nil
}
