package cli

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/outguard"
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

// Run fits the prior --soc to the measurements and writes the profile.
func (o *Fit) Run(stdout, stderr io.Writer) error {
	if o.SoC == "" {
		return fmt.Errorf("--soc: a prior profile is required")
	}
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
	prior, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := MeasurementsFile(o.Measurements, nil, stderr)
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
		Source: "fit of " + o.Measurements + " from prior " + o.SoC}
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
