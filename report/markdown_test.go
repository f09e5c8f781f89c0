package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/report"
	"github.com/blsim/blsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// seed loads the seed's SoC and workload presets.
func seed(t *testing.T) (*model.SoC, *model.Workload) {
	t.Helper()
	s, err := presets.LoadSoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	return s, w
}

// TestMarkdownGolden: report.md of the seed's configuration, with the
// seed's two measured figures (fitted points of the preset) and the
// what-if grid, against testdata/seed-report.md (go test ./report
// -update rewrites it).
func TestMarkdownGolden(t *testing.T) {
	skipShort(t)
	s, w := seed(t)
	q := predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Sweep: true}
	p, err := predict.Run(q)
	if err != nil {
		t.Fatal(err)
	}
	p0, err := predict.Poll0(q, p)
	if err != nil {
		t.Fatal(err)
	}
	heat, err := predict.WhatIfOf(p, s, w, predict.WhatIfOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ms, warns, _, err := presets.Measurements("", nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	pred := func(m *measure.Measurement) (float64, error) {
		r, err := sim.Run(s, w, *m.Plan)
		if err != nil {
			return 0, err
		}
		return r.TPS, nil
	}
	pts, err := predict.ParityPoints(ms, pred, func(*measure.Measurement) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	d := &report.Data{Prediction: p, Poll0: p0, SoC: s, Workload: w, WhatIf: &heat, Parity: pts,
		ParitySource: "the seed's figures", Sources: []string{"Exp-2026-08-17"}, Seed: true, Drawn: predict.Requested,
		Figures: []string{"split.png", "timeline.png", "heatmap.png", "parity.png", "roofline.png"},
		Command: "blsim report -o report", Version: "blsim test", Date: "2026-12-01"}
	var got bytes.Buffer
	if err := report.Markdown(&got, d); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "seed-report.md")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./report -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("report.md differs from %s (go test ./report -update rewrites it):\n%s", golden, got.String())
	}
}

// TestVerdictDispatcherAlone: when the best split gives the helper cluster
// nothing (rk3588's decode: the expert split at frac 0 gains by the
// dispatcher's own handoffs), the verdict is ALONE, never a split WIN, and
// says to run the dispatcher and give little none of the work, not to give
// it a share.
func TestVerdictDispatcherAlone(t *testing.T) {
	s, w := seed(t)
	w.Run.PromptTokens, w.Run.GenTokens = 0, 128
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Modes: []model.Mode{model.ExpertSplit}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Best.Verdict != sim.Alone || p.Best.Plan.Fracs[1] != 0 {
		t.Fatalf("best %s at %v: the case needs the dispatcher alone (ALONE) at frac 0", p.Best.Verdict, p.Best.Plan.Fracs)
	}
	v := report.Verdict(&report.Data{Prediction: p})
	if !strings.Contains(v, "give little none of the routed-expert ops") || strings.Contains(v, "Give little a share") || strings.Contains(v, "Most of that") {
		t.Errorf("verdict %q", v)
	}
}
