package fit

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// Throughput reports whether a measurement is a throughput the simulator
// predicts (as opposed to a microbenchmark that informs a prior).
// It is measure.Measurement.IsThroughput.
func Throughput(m *measure.Measurement) bool { return m.IsThroughput() }

// Predictor predicts measurements with the simulator, caching the
// workloads it parses. It is safe for concurrent use.
type Predictor struct {
	mu        sync.Mutex
	workloads map[string]*model.Workload
	// ctx, when not nil, ends every prediction once it is done: a fit
	// stopped by a signal stops at its next simulation.
	ctx context.Context
}

// NewPredictor returns an empty Predictor.
func NewPredictor() *Predictor { return &Predictor{workloads: map[string]*model.Workload{}} }

// Add makes w the workload of every measurement that names it or names
// none (and has no inline YAML), ahead of a preset of the same name.
func (p *Predictor) Add(w *model.Workload) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.workloads[w.Name+"\x00"] = w
	p.workloads["\x00"] = w
}

// Workload returns the workload a measurement ran: its inline YAML, or the
// workload added under the name it gives, or the preset or file of that name.
func (p *Predictor) Workload(m *measure.Measurement) (*model.Workload, error) {
	key := m.Workload + "\x00" + m.WorkloadYAML
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.workloads[key]; ok {
		return w, nil
	}
	var w *model.Workload
	var err error
	switch {
	case m.WorkloadYAML != "":
		w, err = model.ParseWorkload([]byte(m.WorkloadYAML), "measurement "+m.ID+" workload_yaml")
	case m.Workload != "":
		w, err = presets.LoadWorkload(m.Workload)
	default:
		err = fmt.Errorf("measurement %s names no workload", m.ID)
	}
	if err != nil {
		return nil, err
	}
	p.workloads[key] = w
	return w, nil
}

// Plan is the plan a recorded one simulates as: a native plan recorded
// without fractions runs everything on its engine.
func Plan(mp *model.Plan) model.Plan {
	p := *mp
	if p.Mode == model.Native && len(p.Fracs) == 0 {
		p.Fracs = []float64{1}
	}
	return p
}

// Predict returns the simulated t/s of a throughput measurement on soc.
func (p *Predictor) Predict(soc *model.SoC, m *measure.Measurement) (float64, error) {
	r, err := p.Simulate(soc, m)
	if err != nil {
		return 0, err
	}
	return r.TPS, nil
}

// Simulate runs the simulator for a throughput measurement on soc: its
// workload with the measurement's test, under its plan.
func (p *Predictor) Simulate(soc *model.SoC, m *measure.Measurement) (*sim.Result, error) {
	if !Throughput(m) {
		return nil, fmt.Errorf("measurement %s (%s) is not a throughput", m.ID, m.Kind)
	}
	if p.ctx != nil && p.ctx.Err() != nil {
		return nil, p.ctx.Err()
	}
	w, err := p.Workload(m)
	if err != nil {
		return nil, err
	}
	r, err := sim.Run(soc, WithRun(w, m.Run), Plan(m.Plan))
	if err != nil {
		return nil, fmt.Errorf("measurement %s: %w", m.ID, err)
	}
	return r, nil
}

// WithRun returns w with a record's test applied (its prompt length,
// ubatch, depth and generated tokens: pp, tg or pp+tg): w itself when r is
// nil or matches, else a copy. A tg test keeps the workload's ubatch,
// which one-token graphs do not use.
func WithRun(w *model.Workload, r *measure.Run) *model.Workload {
	return w.WithRun(r.Of(w.Run))
}

// predictAll predicts every measurement on all cores: its t/s and the
// shares of its critical path that waited on memory, in percent: on DRAM
// (sim.Bound.DRAM) and on the engine's own cap below it
// (sim.Bound.EngineCap).
func predictAll(p *Predictor, s *model.SoC, obs []measure.Measurement) (tps []float64, bound []memBound, err error) {
	out := make([]float64, len(obs))
	dram := make([]memBound, len(obs))
	errs := make([]error, len(obs))
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := p.Simulate(s, &obs[i])
				if err != nil {
					errs[i] = err
					continue
				}
				out[i], dram[i] = r.TPS, memBoundOf(r.Bound)
			}
		}()
	}
	for i := range obs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return out, dram, nil
}

// memBound is the shares of a predicted run that waited on memory, in
// percent: DRAM at its sustained bandwidth, and the engine's own cap.
type memBound struct{ dram, cap float64 }

func memBoundOf(b sim.Bound) memBound { return memBound{100 * b.DRAM, 100 * b.EngineCap} }

func residualTable(obs []measure.Measurement, pred []float64, bound []memBound, stat Stat) ([]Residual, float64, float64) {
	var rows []Residual
	ss, sa := 0.0, 0.0
	workloads := map[string]bool{}
	for _, m := range obs {
		workloads[m.Workload] = true
	}
	for i, m := range obs {
		e := measure.ErrPct(pred[i], m.Median)
		ss += e * e
		sa += math.Abs(e)
		label := m.Label()
		if len(workloads) > 1 && m.Workload != "" {
			// Runs of more than one workload (a full calibration's f32
			// experts beside its own): which one.
			label += " (" + m.Workload + ")"
		}
		row := Residual{ID: m.ID, Label: label, Measured: m.Median, Predicted: pred[i], ErrPct: e, DRAMBoundPct: bound[i].dram, CapBoundPct: bound[i].cap,
			SpreadPct: spreadPct(&m, stat), Values: max(1, len(m.Samples))}
		if in := m.Interference; in != nil {
			if cpu, pct := in.Worst(); cpu >= 0 {
				row.OtherCPU, row.OtherPct, row.OtherSource = cpu, pct, in.WorstSource()
			}
			row.Reruns = in.Reruns
		}
		rows = append(rows, row)
	}
	n := float64(len(obs))
	return rows, math.Sqrt(ss / n), sa / n
}

// PlanCheck is the further test validate, plot and report read
// measurements with (measure.ReadUsable): a throughput whose plan soc
// cannot run (an engine it lacks, more threads than an engine's cores)
// is a bad line, counted by the one rule, not the end of the command. A
// fit skips and lists such runs instead (Result.Skipped): its prior may
// be another machine's profile.
func PlanCheck(soc *model.SoC) func(*measure.Measurement) error {
	return func(m *measure.Measurement) error {
		if !Throughput(m) {
			return nil
		}
		if err := Plan(m.Plan).Validate(soc); err != nil {
			return fmt.Errorf("run %s: soc %s cannot run its plan: %w", m.ID, soc.Name, err)
		}
		return nil
	}
}
