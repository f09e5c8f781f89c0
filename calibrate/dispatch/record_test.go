package dispatch

import (
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/model"
)

// A run's record carries the workload, the plan and the timing as
// llama-bench would, and the split in its bl_ fields.
func TestRecord(t *testing.T) {
	w := synthetic(t)
	m, err := NewModel(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	plan := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{2, 1}, model.SharesOf(0.3), 0)
	cpus := map[string][]int{"big": {4, 5}, "little": {0}}
	res := Result{Samples: []time.Duration{2 * time.Second, 4 * time.Second}, TPS: []float64{32, 16},
		ExpertTime: []time.Duration{time.Millisecond, 2 * time.Millisecond}}
	now := time.Date(2030, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))
	rec := m.Record(plan, cpus, res, "Cortex", now)
	if rec.AvgNS != 3e9 || rec.StddevNS != 1414213562 || rec.AvgTS != 24 || rec.CPUMask != "0x31" || rec.NThreads != 2 ||
		rec.Poll != 0 || rec.CPUInfo != "Cortex" || rec.ModelFilename != w.Name || rec.NPrompt != w.Run.PromptTokens ||
		rec.ModelSizeBytes != m.WeightBytes() || !rec.TestTime.Equal(now.Truncate(time.Second)) || len(rec.SamplesNS) != 2 {
		t.Errorf("record %+v", rec)
	}
	want := map[string]string{"bl_split": "token", "bl_clusters": "big=4-5 little=0", "bl_little_frac": "0.3",
		"bl_little_threads": "1", "bl_expert_ns": "1000000/2000000"}
	for k, v := range want {
		if rec.Fields[k] != v {
			t.Errorf("%s = %q, want %q", k, rec.Fields[k], v)
		}
	}
	native := m.Record(model.NewNative("big", 1, 50), map[string][]int{"big": {1}}, Result{Samples: []time.Duration{time.Second}, TPS: []float64{64}}, "CPU", now)
	if _, ok := native.Fields["bl_little_frac"]; ok || native.StddevTS != 0 || native.CPUMask != "0x2" || native.Fields["bl_clusters"] != "big=1" {
		t.Errorf("native record %+v", native)
	}
	if !strings.HasPrefix(rec.ModelType, w.Name+" ") {
		t.Errorf("model type %q", rec.ModelType)
	}
}

// The kernels line names the SIMD kernels in use, and with the generic
// ones forced (as on a CPU without AVX2 or NEON) it is a warning.
func TestKernelsLine(t *testing.T) {
	line, slow := KernelsLine()
	if !strings.Contains(line, quant.Impl()) || slow != (quant.Impl() == "generic") {
		t.Errorf("KernelsLine() = %q, %v with %s", line, slow, quant.Impl())
	}
	if line, slow := kernelsLine("generic"); !slow || !strings.Contains(line, "generic") {
		t.Errorf("forced generic: %q, %v", line, slow)
	}
}
