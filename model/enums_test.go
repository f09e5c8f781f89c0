package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"go.yaml.in/yaml/v3"
)

// TestParseBadEnum: a value of a typed enum outside its list is refused
// where the profile is parsed, with one line naming the file, the line,
// the key and the known names.
func TestParseBadEnum(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		path, msg      string // the error is "npu.yaml:LINE: PATH: MSG", LINE that of old
	}{
		{"engine kind", "kind: npu", "kind: gpu",
			"engines[2].kind", `"gpu" is not an engine kind (known: cpu, npu)`},
		{"engine kind empty", "kind: npu", `kind: ""`,
			"engines[2].kind", `"" is not an engine kind (known: cpu, npu)`},
		{"engine kind upper case", "kind: npu", "kind: NPU",
			"engines[2].kind", `"NPU" is not an engine kind (known: cpu, npu)`},
		{"sharing policy", "sharing: maxmin", "sharing: fair",
			"dram.sharing", `"fair" is not a sharing policy (known: maxmin, proportional)`},
		{"op kind", "ops: [expert_matmul]", "ops: [expert_matmul, softmax]",
			"engines[2].ops[1]", `"softmax" is not an op kind (known: matmul, expert_matmul, attention, scalar)`},
		{"op kind by number", "ops: [expert_matmul]", "ops: [1]",
			"engines[2].ops[0]", `"1" is not an op kind (known: matmul, expert_matmul, attention, scalar)`},
		{"kernel class", "{q4: 0.78, q6: 0.22}", "{q4: 0.78, Q6: 0.22}",
			"engines[2].convert_bytes_per_weight_byte.Q6", `"Q6" is not a kernel class (known: q4, q6, q8, f16, f32)`},
		{"split mode", "split_modes: [token]", "split_modes: [layer]",
			"engines[2].split_modes[0]", `"layer" is not a plan mode (known: native, token, expert, pool)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := string(npuYAML(t, func(s string) string { return s }))
			line := strings.Count(good[:strings.Index(good, tc.old)], "\n") + 1
			_, err := model.ParseSoC(npuYAML(t, replaceOnce(t, tc.old, tc.new)), "npu.yaml")
			want := fmt.Sprintf("npu.yaml:%d: %s: %s", line, tc.path, tc.msg)
			if err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

// TestEnumsRoundTrip: every known value of each enum reads back as
// itself, and a value built in code outside the list is not Known (what
// Validate refuses).
func TestEnumsRoundTrip(t *testing.T) {
	for _, k := range model.EngineKinds {
		if !k.Known() || k.String() != string(k) {
			t.Errorf("engine kind %q", k)
		}
	}
	for _, s := range model.Sharings {
		if !s.Known() || s.String() != string(s) {
			t.Errorf("sharing %q", s)
		}
	}
	for _, c := range model.KernelClasses {
		if !c.Known() || c.String() != string(c) {
			t.Errorf("kernel class %q", c)
		}
	}
	if model.EngineKind("gpu").Known() || model.Sharing("").Known() || model.Mode("layer").Known() || model.KernelClass("q5_k").Known() {
		t.Error("an unknown value is Known")
	}
	// Op kinds are written by name and read back.
	for _, k := range model.OpKinds {
		b, err := yaml.Marshal([]model.OpKind{k})
		var back []model.OpKind
		if err != nil || string(b) != "- "+k.String()+"\n" || yaml.Unmarshal(b, &back) != nil || len(back) != 1 || back[0] != k {
			t.Errorf("op kind %v: %q, %v, read back %v", k, b, err, back)
		}
	}
	if s := model.OpKind(9).String(); s != "OpKind(9)" {
		t.Errorf("OpKind(9) = %q", s)
	}
	for _, tc := range []struct {
		edit func(*model.SoC)
		want string
	}{
		{func(s *model.SoC) { s.Engines[1].Kind = "gpu" }, `engines[1].kind: "gpu" is not an engine kind (known: cpu, npu)`},
		{func(s *model.SoC) { s.DRAM.Sharing = "" }, `dram.sharing: "" is not a sharing policy (known: maxmin, proportional)`},
		{func(s *model.SoC) {
			s.Engines[2].Ops = []model.OpKind{model.ExpertMatmul, 7}
		}, `engines[2].ops[1]: "OpKind(7)" is not an op kind (known: matmul, expert_matmul, attention, scalar)`},
		{func(s *model.SoC) {
			s.Engines[2].ConvertBytesPerWeightByte["q5"] = 1
		}, `engines[2].convert_bytes_per_weight_byte.q5: "q5" is not a kernel class (known: q4, q6, q8, f16, f32)`},
	} {
		s, err := presets.SoC("rk3588-npu")
		if err != nil {
			t.Fatal(err)
		}
		tc.edit(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: got %v, want %q", err, tc.want)
		}
	}
}
