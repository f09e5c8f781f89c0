package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/report"
)

// ValidationOut writes blsim validate's result in format f: text is the
// summary and the top worst configurations (fit.Validation.WriteText);
// json the whole document; md, csv and jsonl every configuration scored,
// worst first, one row each: its id and label, measured and predicted
// t/s, the error, the share of the run waiting on DRAM, and whether the
// profile was fitted on it.
func ValidationOut(w io.Writer, v *fit.Validation, f report.Format, stat fit.Stat, top int) error {
	if f == report.FormatText {
		return v.WriteText(w, stat, top)
	}
	rows := v.Worst
	num := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	set := func(i int) string {
		if rows[i].InFit {
			return "fitted"
		}
		return "held out"
	}
	prec := 2
	if f == report.FormatCSV {
		prec = 4
	}
	cols := []report.Column{
		{Field: "id", Title: "id", Cell: func(i int) string { return rows[i].ID }},
		{Field: "label", Title: "label", Cell: func(i int) string { return rows[i].Label }},
		{Field: "set", Title: "set", Cell: set},
		{Field: "measured_ts", Title: "measured t/s", Number: true, Cell: func(i int) string { return num(rows[i].Measured, prec+1) }},
		{Field: "predicted_ts", Title: "predicted t/s", Number: true, Cell: func(i int) string { return num(rows[i].Predicted, prec+1) }},
		{Field: "err_pct", Title: "error %", Number: true, Cell: func(i int) string { return num(rows[i].ErrPct, prec) }},
		{Field: "dram_bound_pct", Title: "DRAM-bound %", Number: true, Cell: func(i int) string { return num(rows[i].DRAMBoundPct, 1) }},
		{Field: "cap_bound_pct", Title: "cap-bound %", Number: true, Cell: func(i int) string { return num(rows[i].CapBoundPct, 1) }},
	}
	return report.WriteTable(w, f, cols, len(rows), v, func(i int) any { return rows[i] })
}

// Validate is `blsim validate`: its flags, and Run.
type Validate struct {
	Measurements, SoC, Stat, Kernels string
	Holdout                          []string
	Top                              int
	LOO, JSON                        bool
	Output                           string // -o: text, md, csv, json or jsonl
}

// Run scores the profile --soc on the measurements: as it is, leaving
// each one out (--loo) or holding out --holdout's. The two that refit
// start, without --soc, from calibrate's own prior for a file blsim
// calibrate wrote (calibratePrior).
func (o *Validate) Run(stdout, stderr io.Writer) error {
	refit := o.LOO || len(o.Holdout) > 0
	if o.SoC == "" && !refit {
		return fmt.Errorf("--soc: a profile is required (the profile scored; only --loo and --holdout, which refit, start without one from calibrate's own prior)")
	}
	if o.LOO && len(o.Holdout) > 0 {
		return fmt.Errorf("--loo and --holdout: choose one")
	}
	if o.Top < 0 {
		return fmt.Errorf("--top: %d is negative", o.Top)
	}
	format, err := report.ParseFormat(o.Output)
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if o.JSON {
		format = report.FormatJSON
	}
	opts, err := FitOptionsOf(o.Stat, o.Kernels)
	if err != nil {
		return err
	}
	var soc *model.SoC
	var ms []measure.Measurement
	if o.SoC != "" {
		if soc, err = presets.LoadSoC(o.SoC); err != nil {
			return fmt.Errorf("--soc: %w", err)
		}
		if ms, err = MeasurementsFile(o.Measurements, fit.PlanCheck(soc), stderr); err != nil {
			return err
		}
	} else {
		// A refit of a file blsim calibrate wrote, from calibrate's own
		// prior (blsim fit without --soc).
		if ms, err = MeasurementsFile(o.Measurements, nil, stderr); err != nil {
			return err
		}
		if soc, _, err = calibratePrior(o.Measurements, ms); err != nil {
			return err
		}
	}
	var v *fit.Validation
	switch {
	case o.LOO:
		v, err = fit.LeaveOneOut(soc, ms, opts)
	case len(o.Holdout) > 0:
		v, _, err = fit.Holdout(soc, ms, o.Holdout, opts)
		if err != nil {
			err = fmt.Errorf("--holdout: %s: %w", o.Measurements, err)
		}
	default:
		if opts.Kernels != fit.KernelsAuto {
			fmt.Fprintf(stderr, "blsim: warning: --kernels %s does nothing without --loo or --holdout: the profile is used as it is\n", opts.Kernels)
		}
		v, err = fit.Predictions(soc, ms, opts)
	}
	if err != nil {
		return err
	}
	return ValidationOut(stdout, v, format, opts.Stat, o.Top)
}
