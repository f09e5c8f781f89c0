package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// bench drives the user's benchmark command over its knob grid
// and, unless --no-fit, fits the prior profile to what it measured.
func (o *Calibrate) bench(ctx context.Context, stdout, stderr io.Writer) error {
	if o.Workload == "" {
		return fmt.Errorf("--workload: say which model the benchmark runs (a preset name or a workload YAML file)")
	}
	if !o.NoFit && o.Prior == "" {
		return fmt.Errorf("--soc: a prior profile to fit is required with --bench (or pass --no-fit)")
	}
	w, err := presets.LoadWorkload(o.Workload)
	if err != nil {
		return fmt.Errorf("--workload: %w", err)
	}
	// With --no-fit a prior still checks each record's plan as it arrives.
	var prior *model.SoC
	if o.Prior != "" {
		if prior, err = presets.LoadSoC(o.Prior); err != nil {
			return fmt.Errorf("--soc: %w", err)
		}
	}
	wyaml, err := model.MarshalWorkload(w)
	if err != nil {
		return err
	}
	o.Bench.Rounds = o.Rounds
	cfg, err := o.Bench.Config()
	if err != nil {
		return err
	}
	if prior != nil {
		o.Bench.prior = prior
		calibrate.AdaptGrid(&cfg, prior, o.Bench.Knobs != "")
	}
	switch {
	case o.NoFit && len(o.Holdout) > 0:
		return fmt.Errorf("--holdout: nothing is fitted with --no-fit (validate the file later with blsim validate --holdout)")
	case o.NoFit: // a grid file's holdout waits for blsim validate --holdout
	case len(o.Holdout) == 0:
		o.Holdout = o.Bench.fileHoldout
	}
	if len(o.Holdout) > 0 && !o.NoFit {
		if err := calibrate.CheckHoldout(cfg, o.Holdout); err != nil {
			return fmt.Errorf("--holdout %s: %w", strings.Join(o.Holdout, ","), err)
		}
	}
	for _, gap := range calibrate.GridGaps(cfg, prior != nil, o.Holdout, !o.NoFit) {
		fmt.Fprintf(stderr, "blsim: warning: %s\n", gap)
	}
	progress := stdout
	if o.JSON {
		progress = stderr // stdout is the JSON document alone
	}
	path, err := RunBenchGrid(ctx, &o.Bench, w.Name, string(wyaml), progress)
	if err != nil {
		return calibrateError(err, path)
	}
	if o.NoFit {
		return recorded(stdout, path, o.JSON)
	}
	ms, err := MeasurementsFile(path, nil, stderr)
	if err != nil {
		return err
	}
	return fitProfile(stdout, stderr, o, prior, ms, o.Holdout, "blsim calibrate --bench from prior "+o.Prior, nil)
}
