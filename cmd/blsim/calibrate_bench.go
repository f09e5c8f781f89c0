package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// calibrateBench drives the user's benchmark command over its knob grid
// and, unless --no-fit, fits the prior profile to what it measured.
func calibrateBench(ctx context.Context, o *calibrateOptions, stdout, stderr io.Writer) error {
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
	cfg, err := o.Bench.config()
	if err != nil {
		return err
	}
	if prior != nil {
		o.Bench.prior = prior
		o.Bench.adaptTo(&cfg, prior)
		for _, gap := range cfg.Gaps() {
			fmt.Fprintf(stderr, "blsim: warning: %s\n", gap)
		}
	}
	switch {
	case o.NoFit && len(o.Holdout) > 0:
		return fmt.Errorf("--holdout: nothing is fitted with --no-fit (validate the file later with blsim validate --holdout)")
	case o.NoFit:
		// A grid file's holdout waits for blsim validate --holdout.
	case len(o.Holdout) == 0:
		o.Holdout = o.Bench.fileHoldout
	}
	if len(o.Holdout) > 0 && !o.NoFit {
		if err := checkHoldout(cfg, o.Holdout); err != nil {
			return err
		}
	}
	progress := stdout
	if o.JSON {
		progress = stderr // stdout is the JSON document alone
	}
	path, err := runBenchGrid(ctx, &o.Bench, w.Name, string(wyaml), progress, stderr)
	if err != nil {
		return err
	}
	if o.NoFit {
		if o.JSON {
			return writeJSON(stdout, calibrateJSON{Measurements: path})
		}
		fmt.Fprintf(stdout, "recorded %s (no fit)\n", path)
		return nil
	}
	ms, err := readMeasurements(path, stderr)
	if err != nil {
		return err
	}
	return fitProfile(stdout, stderr, o, prior, ms, o.Holdout, "blsim calibrate --bench from prior "+o.Prior, nil)
}

// checkHoldout makes sure, before anything runs, that the holdout patterns
// split the grid: some points held out and some left to fit. Points whose
// plan the knobs alone do not fix (it may depend on what the command
// prints) count as fitted.
func checkHoldout(cfg runner.Config, patterns []string) error {
	held, total := 0, 0
	example := ""
	for _, p := range cfg.Grid.Points() {
		total++
		plan, err := cfg.Mapping.Plan(p, llamabench.Record{})
		if err != nil {
			continue
		}
		m := measure.Measurement{ID: p.ID, Plan: &plan, Knobs: p.Knobs, Run: cfg.PointRun(p)}
		if example == "" {
			example = m.Label()
		}
		if fit.HeldOut(&m, patterns) {
			held++
		}
	}
	switch {
	case held == 0:
		hint := ""
		if example != "" {
			hint = fmt.Sprintf(" (a point's label reads %q)", example)
		}
		return fmt.Errorf("--holdout %s: no point of the grid matches%s", strings.Join(patterns, ","), hint)
	case held == total:
		return fmt.Errorf("--holdout %s: every point of the grid matches: none is left to fit", strings.Join(patterns, ","))
	}
	return nil
}
