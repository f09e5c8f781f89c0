package cli

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/pflag"
)

// Fit is `blsim fit`: its flags, and Run.
type Fit struct {
	Measurements, SoC, Out, Stat, Kernels string
	Free, Holdout                         []string
	AcceptPoor, JSON                      bool
	Flags                                 *pflag.FlagSet
}

// Run fits the prior --soc (without it, calibrate's own prior, rebuilt
// from the clusters the measurements record) to the measurements and
// writes the profile.
func (o *Fit) Run(stdout, stderr io.Writer) error {
	if o.Out == "" {
		return fmt.Errorf("-o: an output file is required")
	}
	opts, err := FitOptionsOf(o.Stat, o.Kernels)
	if err != nil {
		return err
	}
	if err := outguard.Check(o.Flags, nil, "output"); err != nil {
		return err
	}
	ms, err := MeasurementsFile(o.Measurements, nil, stderr)
	if err != nil {
		return err
	}
	prior, from, err := o.prior(ms)
	if err != nil {
		return err
	}
	if o.Free != nil && len(o.Free) == 0 {
		return fmt.Errorf("--free: no parameter named (leave the flag out to fit the default set)")
	}
	for _, p := range o.Free {
		if _, err := prior.Get(p); err != nil {
			return fmt.Errorf("--free: %w", err)
		}
	}
	opts.Free = o.Free
	job := fit.Job{Prior: prior, Measurements: ms, Options: opts, Holdout: o.Holdout,
		Source: "fit of " + o.Measurements + " from prior " + from}
	out := FitOutput{Path: o.Measurements, Out: o.Out, AcceptPoor: o.AcceptPoor, Prior: o.SoC}
	if o.JSON {
		out.JSON = func(r *fit.Result, v *fit.Validation) any {
			if v != nil {
				return struct {
					Fit     *fit.Result     `json:"fit"`
					Holdout *fit.Validation `json:"holdout"`
				}{r, v}
			}
			return r
		}
	}
	// The fit alone, as calibrate's: with the collector set for it.
	defer calibrate.FitCollector("/")()
	return out.Run(stdout, stderr, job)
}

// prior is the fit's prior and what it is, for the provenance: --soc, or
// without it, calibrate's own prior rebuilt from the clusters the
// measurements record (calibrate.RecordedEngines) and their
// microbenchmarks, as calibrate built it for its own fit.
func (o *Fit) prior(ms []measure.Measurement) (*model.SoC, string, error) {
	if o.SoC != "" {
		prior, err := presets.LoadSoC(o.SoC)
		if err != nil {
			return nil, "", fmt.Errorf("--soc: %w", err)
		}
		return prior, o.SoC, nil
	}
	return calibratePrior(o.Measurements, ms)
}

// calibratePrior is calibrate's own prior for the measurements of path,
// rebuilt from the clusters they record (calibrate.RecordedEngines), their
// workload and their microbenchmarks, as calibrate built it for its own
// fit; and what it is, for the provenance.
func calibratePrior(path string, ms []measure.Measurement) (*model.SoC, string, error) {
	es, ok, err := calibrate.RecordedEngines(ms)
	if err != nil {
		return nil, "", fmt.Errorf("--measurements: %s: %w", path, err)
	}
	if !ok {
		return nil, "", fmt.Errorf("--soc: a prior profile is required: %s records no clusters to rebuild calibrate's prior from (files blsim calibrate wrote before it recorded them, or another program's runs)", path)
	}
	w, err := calibrate.RecordedWorkload(ms)
	if err != nil {
		return nil, "", fmt.Errorf("--measurements: %s: %w", path, err)
	}
	name := "this-machine"
	for _, m := range ms {
		if m.Host != nil && m.Host.Name != "" {
			name = m.Host.Name
			break
		}
	}
	return calibrate.Prior(name, es, ms, w), "calibrate's own on " + calibrate.EnginesLine(es), nil
}
