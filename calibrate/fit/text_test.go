package fit

import (
	"strings"
	"testing"
)

// The identification note says "its value is the prior's" only for a
// parameter the fit left there, and says where one that moved went.
func TestIdentificationNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    ParamFit
		want string
	}{
		{"identified", ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.1, Identifiable: true}, ""},
		{"left at the prior", ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 1},
			"x is not identifiable from these measurements: its value is the prior's"},
		{"moved with another", ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.5, CoupledWith: []string{"y", "z"}},
			"x is not identifiable on its own: moved from 4.27 to 1.44 together with y, z (the runs fix only a combination of them)"},
		{"narrowed by another", ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 0.4, CoupledWith: []string{"y"}},
			"x is not identifiable on its own: the runs fix it only together with y; its value stayed the prior's 4.27, its σ narrowed from 1 to 0.4"},
		{"moved alone", ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 1, AtBound: "lower"},
			"x is weakly identified: the fit moved it from 4.27 to 1.44, its lower bound, where no run depends on it any more: the runs pushed it there but do not pin it (σ 1, the prior's 1)"},
	} {
		p := tc.p
		p.Identification = IdentificationOf(p)
		got := p.Note()
		if got != tc.want {
			t.Errorf("%s: note\n %q\nwant\n %q", tc.name, got, tc.want)
		}
		if p.Moved() && strings.Contains(got, "its value is the prior's") {
			t.Errorf("%s: moved from %g to %g, yet the note says the value is the prior's", tc.name, p.Prior, p.Value)
		}
		// The fit's table and summary say the same.
		var b strings.Builder
		if err := (&Result{Params: []ParamFit{p}, Status: "FunctionConverged"}).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if p.Moved() && strings.Contains(b.String(), "their values are the priors'") {
			t.Errorf("%s: moved, yet the summary says the prior's:\n%s", tc.name, b.String())
		}
		if tc.want != "" && p.Identification != PriorOnly && !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: fit text lacks the note:\n%s", tc.name, b.String())
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{"FunctionConverged": "function converged", "IterationLimit": "iteration limit", "": "", "ok": "ok"} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// A validation with fitted and held-out points prints a line for each
// group and a set column; one of held-out points only prints neither.
func TestValidationText(t *testing.T) {
	worst := []Residual{{ID: "a", Label: "token f=0.1", Measured: 10, Predicted: 11, ErrPct: 10, InFit: true},
		{ID: "b", Label: "token f=0.2", Measured: 10, Predicted: 9, ErrPct: -10}}
	v := &Validation{Mode: "predict", Worst: worst, Fitted: Group{N: 1, MAPE: 10, MaxErrPct: 10}, HeldOut: Group{N: 1, MAPE: 10, MaxErrPct: 10}}
	var b strings.Builder
	if err := v.WriteText(&b, Best, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"predict: 1 fitted point (in-sample: the profile was fitted on this throughput, so its error is not held out), MAPE 10.00%, max error 10.00% (best sample)\n",
		"predict: 1 held-out throughput, MAPE 10.00%, max error 10.00% (best sample)\n",
		"worst            set     measured t/s  predicted t/s  error\n",
		"token f=0.1 (a)  fitted  10.000        11.000         +10.00%\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "f=0.2") {
		t.Errorf("top 1 printed two:\n%s", b.String())
	}
	v = &Validation{Mode: "holdout", Worst: worst[1:], HeldOut: Group{N: 2, MAPE: 3, MaxErrPct: 4}, FitUnrecorded: true}
	b.Reset()
	if err := v.WriteText(&b, Median, 5); err != nil {
		t.Fatal(err)
	}
	if want := "holdout: 2 throughputs, held out only if measured after the fit (the profile does not record the runs it was fitted on), MAPE 3.00%, max error 4.00% (median of runs)\nworst  "; !strings.HasPrefix(b.String(), want) || strings.Contains(b.String(), "set") {
		t.Errorf("got\n%s\nwant it to start with\n%s", b.String(), want)
	}
}

// The regime table lists the fitted and the scored configurations, with
// the shares waiting on DRAM and on the engine's cap, and counts the ones
// mostly waiting on memory, the two together: a run 20% DRAM-bound and 35%
// cap-bound counts; it is empty without any.
func TestWriteRegimes(t *testing.T) {
	r := &Result{Residuals: []Residual{{Label: "native", Measured: 20, Predicted: 20.2, ErrPct: 1, DRAMBoundPct: 20, CapBoundPct: 35}}}
	v := &Validation{Worst: []Residual{{Label: "token f=0.2", Measured: 22, Predicted: 21, ErrPct: -4.5, DRAMBoundPct: 30, CapBoundPct: 10}}}
	var b strings.Builder
	if err := WriteRegimes(&b, r, v); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DRAM-bound  cap-bound\n", "native         fit       20            20.2           +1.00%  20%         35%\n", "token f=0.2    held out  22            21             -4.50%  30%         10%\n", "1 of 2 configurations at least 50% memory-bound (DRAM and cap together)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteRegimes(&b, &Result{}, nil); err != nil || b.Len() != 0 {
		t.Errorf("no rows: %v %q", err, b.String())
	}
}

// WriteFit prints the note, the fit, the profile written, the held-out
// error and the regimes, in that order; without a note, a profile or a
// validation, none of their lines.
func TestWriteFit(t *testing.T) {
	r := &Result{Residuals: []Residual{{Label: "native", Measured: 20, Predicted: 20.2, ErrPct: 1, DRAMBoundPct: 70}}}
	v := &Validation{N: 1, Worst: []Residual{{Label: "token f=0.2", Measured: 22, Predicted: 21, ErrPct: -4.5, DRAMBoundPct: 30}}}
	var b strings.Builder
	if err := WriteFit(&b, r, v, Median, "noise: quiet", "p.yaml"); err != nil {
		t.Fatal(err)
	}
	out, last := b.String(), -1
	for _, want := range []string{"noise: quiet\n", "parameter", "wrote p.yaml\n", "token f=0.2 ()", "regime of each configuration"} {
		i := strings.Index(out, want)
		if i <= last {
			t.Errorf("%q missing or out of order in\n%s", want, out)
		}
		last = i
	}
	b.Reset()
	if err := WriteFit(&b, r, nil, Median, "", ""); err != nil || strings.Contains(b.String(), "wrote") || strings.Contains(b.String(), "worst") ||
		!strings.HasPrefix(b.String(), "parameter") {
		t.Errorf("bare fit: %v\n%s", err, b.String())
	}
}
