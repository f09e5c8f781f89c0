package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/report"
)

// TestOnePredictionManyViews: for three requests (the seed's; 4 big + 8
// little threads on a copied SoC with eight little cores; three clusters
// of cix-p1), the table, the JSON, report.md and every figure show the
// same best split, gain, threads and balance point, because they are all
// views of one Prediction.
func TestOnePredictionManyViews(t *testing.T) {
	skipShort(t)
	load := func(soc string) (*model.SoC, *model.Workload) {
		s, err := presets.LoadSoC(soc)
		if err != nil {
			t.Fatal(err)
		}
		w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
		if err != nil {
			t.Fatal(err)
		}
		return s, w
	}
	seed, w0 := load("rk3588")
	copied, w1 := load("rk3588")
	copied.Name = "my-board"
	_, k, _ := copied.Engine("little")
	copied.Engines[k].Cores = 8
	cix, w2 := load("cix-p1")
	for _, tc := range []struct {
		name string
		req  predict.Request
	}{
		{"seed", predict.Request{SoC: seed, Workload: w0, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 8}},
		{"4+8 threads", predict.Request{SoC: copied, Workload: w1, Threads: []int{4, 8}, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 8}},
		{"cix-p1 three engines", predict.Request{SoC: cix, Workload: w2, Engines: []string{"big", "mid", "little"},
			Modes: []model.Mode{model.TokenSplit}, Poll: 50, Draws: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.req
			q.Sweep, q.Traces = q.TwoEngine(), true
			p, err := predict.Run(q)
			if err != nil {
				t.Fatal(err)
			}
			b := p.Best
			gain := fmt.Sprintf("%+.2f%%", b.GainPct)
			share := fmt.Sprintf("%.3f", math.Round(b.Frac()*1e4)/1e4)
			if !p.TwoEngine() {
				share = fmt.Sprintf("%s %.3f", p.Engines[len(p.Engines)-1], math.Round(b.Plan.Fracs[len(p.Engines)-1]*1e4)/1e4)
			}
			threads := fmt.Sprintf("%s %d", p.Engines[1], p.Threads[1])

			var table bytes.Buffer
			if err := report.Table(&table, p); err != nil {
				t.Fatal(err)
			}
			mustHave(t, "table", table.String(), gain, share, fmt.Sprintf("verdict: %s", b.Verdict))

			var js bytes.Buffer
			if err := json.NewEncoder(&js).Encode(p); err != nil {
				t.Fatal(err)
			}
			var back predict.Prediction
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if back.Schema != predict.Schema || back.Best.GainPct != b.GainPct || !equal(back.Best.Plan.Fracs, b.Plan.Fracs) ||
				!slicesEqual(back.Threads, p.Threads) || back.Best.Verdict != b.Verdict {
				t.Errorf("JSON best %+v threads %v, want %+v threads %v", back.Best, back.Threads, b, p.Threads)
			}

			heat, err := predict.WhatIfOf(p, q.SoC, q.Workload, predict.WhatIfOptions{NX: 3, NY: 2})
			if err != nil {
				t.Fatal(err)
			}
			hf, err := plots.Heatmap(heat)
			if err != nil {
				t.Fatal(err)
			}
			heatText := strings.Join(hf.Texts(), "\n")
			mustHave(t, "heatmap", heatText, gain, threads, string(b.Plan.Mode))
			if !p.TwoEngine() {
				mustHave(t, "heatmap", heatText, share)
			} else {
				mustHave(t, "heatmap", heatText, "at "+share)
			}

			tf, err := plots.View(plots.KindTimeline, p, plots.ViewData{SoC: q.SoC, Workload: q.Workload, Layers: 1})
			if err != nil {
				t.Fatal(err)
			}
			mustHave(t, "timeline", strings.Join(tf.Texts(), "\n"), strings.Join(intStrings(p.Threads), "+")+" threads")

			d := &report.Data{Prediction: p, SoC: q.SoC, Workload: q.Workload, WhatIf: &heat, Drawn: predict.Best,
				Figures: []string{"timeline.png", "heatmap.png"}, Command: "blsim report", Version: "test", Date: "2026-12-01"}
			if p.TwoEngine() {
				sd, err := plots.SplitOf(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				sf, err := plots.SplitCurve(sd)
				if err != nil {
					t.Fatal(err)
				}
				st := strings.Join(sf.Texts(), "\n")
				mustHave(t, "split curve", st, gain, "best "+string(b.Plan.Mode)+" split "+share, threads)
				if bal, ok := p.Balance(model.TokenSplit); ok {
					mustHave(t, "split curve", st, fmt.Sprintf("token balance %.3f", bal))
					mustHave(t, "table", table.String(), fmt.Sprintf("frac %.3f", math.Round(bal*1e4)/1e4))
				}
				d.Figures = append([]string{"split.png"}, d.Figures...)
			}
			var md bytes.Buffer
			if err := report.Markdown(&md, d); err != nil {
				t.Fatal(err)
			}
			mustHave(t, "report.md", md.String(), gain, share, threads, string(b.Verdict))
		})
	}
}

func mustHave(t *testing.T, view, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not show %q:\n%s", view, w, text)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func intStrings(v []int) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprint(x)
	}
	return out
}
