package plots

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot/vg"
)

// A plan over three clusters, or over a CPU cluster and an NPU, draws a
// row (timeline) or a roof (roofline) per engine, with every helper
// engine's partitions placed.
func TestTimelineAndRooflineOverNEngines(t *testing.T) {
	w, _ := presets.Workload("qwen3.5-35b-a3b")
	for _, tc := range []struct {
		soc     string
		plan    model.Plan
		title   string
		cores   string // the legend's unit for the last engine
		helpers []string
	}{
		{"cix-p1", model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "mid", "little"}, Fracs: []float64{0.5, 0.4, 0.1}, Threads: []int{4, 4, 4}, Poll: 50},
			"token split big 0.5 / mid 0.4 / little 0.1, 4+4+4 threads, poll 50", "4 threads", []string{"mid", "little"}},
		{"rk3588-npu", model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "npu"}, Fracs: []float64{0.3, 0.7}, Threads: []int{4, 3}, Poll: 50},
			"token split big 0.3 / npu 0.7, 4+3 threads, poll 50", "3 cores", []string{"npu"}},
	} {
		t.Run(tc.soc, func(t *testing.T) {
			s, err := presets.SoC(tc.soc)
			if err != nil {
				t.Fatal(err)
			}
			td := simTimeline(t, s, w, tc.plan, 1)
			if strings.Join(td.Engines, ",") != strings.Join(tc.plan.Engines, ",") || !strings.Contains(td.Title, tc.title) {
				t.Errorf("timeline engines %v, title %q", td.Engines, td.Title)
			}
			busy := map[string]bool{}
			for _, sp := range td.Spans {
				if sp.State == sim.Compute {
					busy[sp.Engine] = true
				}
			}
			for _, e := range tc.plan.Engines {
				if !busy[e] {
					t.Errorf("timeline: engine %s never computes", e)
				}
			}
			rd, err := simRoofline(s, w, tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			if len(rd.Engines) != len(tc.plan.Engines) || !strings.Contains(rd.Title, "roofline of ubatch 0, "+tc.title) {
				t.Errorf("roofline engines %+v, title %q", rd.Engines, rd.Title)
			}
			placed := map[string]int{}
			for _, op := range rd.Ops {
				placed[op.Engine]++
				if op.Engine != tc.plan.Engines[0] && op.Kind != model.ExpertMatmul {
					t.Errorf("helper %s placed a %s op", op.Engine, op.Kind)
				}
			}
			for _, h := range tc.helpers {
				if placed[h] == 0 {
					t.Errorf("roofline: no op placed on %s", h)
				}
			}
			fig, err := Roofline(rd)
			if err != nil {
				t.Fatal(err)
			}
			var legend []string
			for _, l := range fig.Legend {
				legend = append(legend, l.Label)
			}
			if last := legend[len(tc.plan.Engines)-1]; !strings.Contains(last, tc.cores) {
				t.Errorf("roof legend %q, want %q", last, tc.cores)
			}
			var a, b bytes.Buffer
			for _, buf := range []*bytes.Buffer{&a, &b} {
				f, err := Timeline(td)
				if err != nil {
					t.Fatal(err)
				}
				if err := Write(buf, f, "svg", 9*vg.Inch, 5*vg.Inch); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two renders of the timeline differ")
			}
		})
	}
	// A roofline needs a split.
	s, _ := presets.SoC("cix-p1")
	native := model.NewNative("big", 4, 50)
	if _, err := simRoofline(s, w, native); err == nil {
		t.Error("roofline of a native plan: no error")
	}
	bad := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "gpu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 4}, Poll: 50}
	if _, err := simRoofline(s, w, bad); err == nil || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("roofline over an unknown engine: %v", err)
	}
}

// PlanTitle names a plan's shares, threads and poll.
func TestPlanTitle(t *testing.T) {
	s, w := load(t, "rk3588")
	for _, tc := range []struct {
		plan model.Plan
		want string
	}{
		{model.NewNative("big", 4, 50), "qwen3.5-35b-a3b on rk3588: native (big only), 4 threads, poll 50"},
		{model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 2}, model.SharesOf(0.12), 0),
			"qwen3.5-35b-a3b on rk3588: expert split big 0.88 / little 0.12, 4+2 threads, poll 0"},
	} {
		if got := PlanTitle(s, w, tc.plan); got != tc.want {
			t.Errorf("PlanTitle(%v) = %q, want %q", tc.plan, got, tc.want)
		}
	}
}
