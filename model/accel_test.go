package model_test

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// npuSoC is the rk3588-npu preset's YAML with edit applied to its text.
func npuYAML(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	b, err := presets.SoCData("rk3588-npu")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(edit(string(b)))
}

func replaceOnce(t *testing.T, old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("preset lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// TestNPUEngineValidation: the accelerator fields are required for kind
// npu, checked for range, and rejected on CPU clusters; each error is one
// line naming the field.
func TestNPUEngineValidation(t *testing.T) {
	if _, err := model.ParseSoC(npuYAML(t, func(s string) string { return s }), "ok"); err != nil {
		t.Fatalf("rk3588-npu: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"submit missing", "    submit_us: 250\n", "", "engines[2].submit_us: required for kind npu"},
		{"submit negative", "submit_us: 250", "submit_us: -5", "engines[2].submit_us"},
		{"ops missing", "    ops: [expert_matmul]\n", "", "engines[2].ops: required for kind npu"},
		{"ops unknown", "ops: [expert_matmul]", "ops: [expert_matmul, softmax]", `engines[2].ops[1]: "softmax" is not an op kind`},
		{"ops twice", "ops: [expert_matmul]", "ops: [expert_matmul, expert_matmul]", "listed twice"},
		{"split mode unknown", "split_modes: [token]", "split_modes: [layer]", `engines[2].split_modes[0]: "layer" is not a plan mode (known: native, token, expert, pool)`},
		{"split mode not a split", "split_modes: [token]", "split_modes: [pool]", `engines[2].split_modes[0]: "pool" is not token or expert`},
		{"shares_dram missing", "    shares_dram: true\n", "", "engines[2].shares_dram: required for kind npu"},
		{"convert class unknown", "{q4: 0.78, q6: 0.22}", "{q4: 0.78, q5: 0.22}", `engines[2].convert_bytes_per_weight_byte.q5: "q5" is not a kernel class (known: q4, q6, q8, f16, f32)`},
		{"convert negative", "{q4: 0.78, q6: 0.22}", "{q4: -1, q6: 0.22}", "engines[2].convert_bytes_per_weight_byte.q4"},
		{"unknown kind", "kind: npu", "kind: gpu", `engines[2].kind: "gpu" is not an engine kind (known: cpu, npu)`},
		{"cpu with submit", "    kind: cpu\n    core_type: Cortex-A55\n", "    kind: cpu\n    core_type: Cortex-A55\n    submit_us: 10\n", "engines[1].submit_us: only for accelerator engines"},
		{"cpu with ops", "    kind: cpu\n    core_type: Cortex-A55\n", "    kind: cpu\n    core_type: Cortex-A55\n    ops: [matmul]\n", "engines[1].ops: only for accelerator engines"},
		{"cpu with shares_dram", "    kind: cpu\n    core_type: Cortex-A55\n", "    kind: cpu\n    core_type: Cortex-A55\n    shares_dram: true\n", "engines[1].shares_dram: only for accelerator engines"},
		{"bandwidth above peak when shared", "bandwidth_max_gb_s: 14.0", "bandwidth_max_gb_s: 50.0", "exceeds dram.peak_gb_s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.ParseSoC(npuYAML(t, replaceOnce(t, tc.old, tc.new)), "npu.yaml")
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "npu.yaml:") {
				t.Errorf("error %q: want one line with file, line and %q", msg, tc.want)
			}
		})
	}
	// Memory of its own: the SoC's DRAM peak does not cap it.
	s, err := model.ParseSoC(npuYAML(t, func(s string) string {
		s = replaceOnce(t, "shares_dram: true", "shares_dram: false")(s)
		return replaceOnce(t, "bandwidth_max_gb_s: 14.0", "bandwidth_max_gb_s: 50.0")(s)
	}), "own.yaml")
	if err != nil {
		t.Fatalf("npu with its own memory: %v", err)
	}
	if e, _, _ := s.Engine("npu"); e.UsesSharedDRAM() {
		t.Errorf("shares_dram: false, but UsesSharedDRAM")
	}
}

// TestNPUParams: the accelerator's submit latency is a parameter path of
// the NPU (sweeps and uncertainty use it), not of a CPU cluster.
func TestNPUParams(t *testing.T) {
	s, err := presets.SoC("rk3588-npu")
	if err != nil {
		t.Fatal(err)
	}
	ps := s.Params()
	if !contains(ps, "engines.npu.submit_us") || !contains(ps, "engines.npu.setup_us_per_op") {
		t.Errorf("Params lacks the npu's submit_us / setup_us_per_op")
	}
	if contains(ps, "engines.big.submit_us") {
		t.Errorf("Params lists engines.big.submit_us; a CPU cluster has none")
	}
	if _, err := s.Get("engines.big.submit_us"); err == nil {
		t.Errorf("Get(engines.big.submit_us) works on a CPU cluster")
	}
	c := s.Clone()
	if err := c.Set("engines.npu.submit_us", 900); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("engines.npu.submit_us"); v != 250 {
		t.Errorf("setting a clone changed the preset: %g", v)
	}
	ce, _, _ := c.Engine("npu")
	ce.ConvertBytesPerWeightByte["q4"] = 3
	*ce.SharesDRAM = false
	ce.Ops[0] = model.Matmul
	if e, _, _ := s.Engine("npu"); e.ConvertBytesPerWeightByte["q4"] != 0.78 || !*e.SharesDRAM || e.Ops[0] != model.ExpertMatmul {
		t.Errorf("Clone shares the npu's maps, slices or pointers")
	}
}

// TestPlanValidateEngines: invalid N-engine plans give a one-line error.
func TestPlanValidateEngines(t *testing.T) {
	s, err := presets.SoC("rk3588-npu")
	if err != nil {
		t.Fatal(err)
	}
	noMatmul := s.Clone()
	ne, _, _ := noMatmul.Engine("npu")
	ne.Ops = []model.OpKind{model.Matmul}
	tok := model.TokenSplit
	for _, tc := range []struct {
		name string
		soc  *model.SoC
		p    model.Plan
		want string // "" = valid
	}{
		{"three engines", s, model.Plan{Mode: tok, Engines: []string{"big", "little", "npu"}, Fracs: []float64{0.5, 0.1, 0.4}, Threads: []int{4, 4, 3}}, ""},
		{"npu at zero in expert mode", s, model.Plan{Mode: model.ExpertSplit, Engines: []string{"big", "little", "npu"}, Fracs: []float64{0.9, 0.1, 0}, Threads: []int{4, 4, 3}}, ""},
		{"sum above 1", s, model.Plan{Mode: tok, Engines: []string{"big", "little", "npu"}, Fracs: []float64{0.5, 0.2, 0.4}, Threads: []int{4, 4, 3}}, "fractions sum to 1.1, not 1"},
		{"sum below 1", s, model.Plan{Mode: tok, Engines: []string{"big", "npu"}, Fracs: []float64{0.5, 0.4}, Threads: []int{4, 3}}, "fractions sum to 0.9, not 1"},
		{"fraction count", s, model.Plan{Mode: tok, Engines: []string{"big", "little", "npu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 4, 3}}, "3 engines but 2 fractions"},
		{"unknown engine", s, model.Plan{Mode: tok, Engines: []string{"big", "gpu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 4}}, `no engine "gpu" (have big, little, npu)`},
		{"npu in expert mode", s, model.Plan{Mode: model.ExpertSplit, Engines: []string{"big", "npu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 3}}, `engine "npu" cannot take a share of expert_matmul in expert split mode`},
		{"npu cannot run expert_matmul", noMatmul, model.Plan{Mode: tok, Engines: []string{"big", "npu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 3}}, `engine "npu" cannot run expert_matmul (it runs only matmul)`},
		{"npu as main", s, model.Plan{Mode: tok, Engines: []string{"npu", "big"}, Fracs: []float64{0.5, 0.5}, Threads: []int{3, 4}}, `engine "npu" (npu) cannot be the main engine`},
		{"npu native", s, model.NewNative("npu", 3, 50), `engine "npu" (npu) cannot be the main engine`},
		{"npu threads", s, model.Plan{Mode: tok, Engines: []string{"big", "npu"}, Fracs: []float64{0.5, 0.5}, Threads: []int{4, 4}}, `engine "npu": 4 threads, but it has 3 cores`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate(tc.soc)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("Validate passed; want %q", tc.want)
			case tc.want != "" && (!strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("error %q: want one line containing %q", err, tc.want)
			}
		})
	}
}
