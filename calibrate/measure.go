package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"

	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
)

// measureSteps runs the steps not already in done, appending each
// measurement to w as soon as it finishes. A failed step is recorded with
// its error and the rest go on; a cancelled ctx stops before the next
// step. It returns the measurements it took.
//
// While a step runs, what else runs on the machine is measured
// (package busy) and recorded with it (measure.Measurement.Interference).
// A step that other processes disturbed is run again after a quiet moment,
// within the bounds of policy (nil: busy's defaults); the least disturbed
// attempt is recorded, flagged Disturbed when it stayed so. It calls beforeGrid (when not nil) with the
// measurements taken so far before the first dispatcher run it takes.
func measureSteps(ctx context.Context, steps []Step, done map[string]bool, w *measure.Writer, host *measure.Host, progress measure.Progress,
	policy *busy.Policy, beforeGrid func([]measure.Measurement)) ([]measure.Measurement, error) {
	if policy == nil {
		policy = &busy.Policy{}
	}
	var out []measure.Measurement
	skipped := false
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if st.skip != nil && !done[st.ID] {
			if why := st.skip(out); why != "" {
				// Said once, at the first step skipped; the steps are not
				// written, so --resume on a quiet machine takes them.
				if !skipped && progress != nil {
					progress(i+1, len(steps), st.Label, &measure.Measurement{Status: "skipped", Error: why})
				}
				skipped = true
				continue
			}
		}
		if st.predict != nil && !done[st.ID] && beforeGrid != nil {
			beforeGrid(out)
			beforeGrid = nil
		}
		if done[st.ID] {
			if progress != nil {
				progress(i+1, len(steps), st.Label, nil)
			}
			continue
		}
		// What earlier steps dropped goes back to the system first: Go
		// returns freed pages only gradually, and each microbenchmark's
		// streams are fresh buffers of up to a GiB a thread, so without it
		// they piled up (4.24 GB resident by the stream of all engines at
		// once on the 2-vCPU build VM, docs/busy-machine.md). A dispatcher
		// step's weights stay: they are still held (resident).
		debug.FreeOSMemory()
		attempts := 0
		m, in, err := busy.Run(policy, st.cpus, func(*busy.Watch) (measure.Measurement, float64, error) {
			if attempts > 0 && st.reset != nil {
				st.reset()
			}
			attempts++
			m, err := st.run()
			return m, -1, err
		})
		m.Interference = in
		if m.ID == "" {
			m.ID = st.ID
		}
		if err != nil {
			m.Status, m.Error = "failed", err.Error()
			m.Median, m.CV, m.Samples = 0, 0, nil
		}
		if m.Kind == "" {
			m.Kind = "unknown"
		}
		if math.IsNaN(m.CV) || math.IsInf(m.CV, 0) {
			m.CV = 0
		}
		stamp(&m, host)
		if werr := w.Write(m); werr != nil {
			return out, werr
		}
		out = append(out, m)
		if progress != nil {
			progress(i+1, len(steps), st.Label, &m)
		}
		if err == probe.ErrNeedLinux {
			return out, err
		}
	}
	return out, nil
}

// QuietCPUs lists the CPUs that ms's runs were pinned to and that others
// left quiet (disturbed beyond the thresholds in at most a tenth of the
// runs pinned to them), as a CPU list ("1", "2-3"), when others disturbed
// some other CPU in most of the runs pinned to it; else "". A calibration
// on the quiet CPUs alone can go on while the others are busy.
func QuietCPUs(ms []measure.Measurement) string {
	used, over := map[int]int{}, map[int]int{}
	for _, m := range ms {
		in := m.Interference
		if in == nil {
			continue
		}
		for _, c := range in.Used {
			used[c]++
		}
		for _, c := range in.OverCPUs() {
			over[c]++
		}
	}
	var quiet []int
	busy := false
	for c, n := range used {
		switch {
		case 10*over[c] <= n:
			quiet = append(quiet, c)
		case 2*over[c] > n:
			busy = true
		}
	}
	if len(quiet) == 0 || !busy {
		return ""
	}
	slices.Sort(quiet)
	return topology.FormatCPUList(quiet)
}

// HintQuiet adds to a fit refused for interference (a fit.InterferenceError)
// the CPUs of ms that others left quiet, on which a calibration can go on;
// any other err is returned as it is.
func HintQuiet(err error, ms []measure.Measurement) error {
	var ie *fit.InterferenceError
	if !errors.As(err, &ie) {
		return err
	}
	if quiet := QuietCPUs(ms); quiet != "" {
		return fmt.Errorf("%w; cpu %s stayed quiet: --cluster big=%s calibrates on it alone", err, quiet, quiet)
	}
	return err
}
