package model_test

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestKernelRate: an op takes its GGML type's rate when the engine's table
// has it, its class's when the workload names no type, and, for a known
// type the table lacks, its nearest class's (by the type's bits), said to
// be a fallback.
func TestKernelRate(t *testing.T) {
	e := model.Engine{KernelOpsPerCycle: map[string]float64{"q4": 28, "q6": 22, "q8": 22, "f16": 14, "f32": 8, "q3_k": 7.3, "q8_0": 20}}
	for _, tc := range []struct {
		class model.KernelClass
		typ   string
		want  float64
		src   model.RateSource
		key   string
	}{
		{"q4", "", 28, model.RateOfClass, "q4"},
		{"q4", "q3_k", 7.3, model.RateOfType, "q3_k"},
		{"q8", "q8_0", 20, model.RateOfType, "q8_0"},
		{"q4", "q4_k", 28, model.RateFallback, "q4"},
		{"q4", "iq4_xs", 28, model.RateFallback, "q4"},
		{"q6", "q5_k", 22, model.RateFallback, "q6"},   // 5.5 bits: the q6 class
		{"q4", "q6_k", 22, model.RateFallback, "q6"},   // the type's bits decide, not the op's class
		{"q4", "zz_9", 28, model.RateFallback, "q4"},   // an unknown type: the op's class
		{"f16", "bf16", 14, model.RateFallback, "f16"}, // bf16 runs at f16's rate until given
	} {
		got, src := e.KernelRate(tc.class, tc.typ)
		if got != tc.want || src != tc.src || e.RateKey(tc.class, tc.typ) != tc.key {
			t.Errorf("KernelRate(%s, %q) = %g, %v, key %s; want %g, %v, %s", tc.class, tc.typ, got, src, e.RateKey(tc.class, tc.typ), tc.want, tc.src, tc.key)
		}
	}
}

// TestKernelFallbacks: a workload's types an engine has no rate for are
// listed once per engine and type; f32 and f16 are classes of their own.
func TestKernelFallbacks(t *testing.T) {
	s := presetSoCsOne(t, "rk3588")
	w := &model.Workload{Model: model.Arch{Types: map[string]string{
		"attention": "q8_0", "experts_gate_up": "iq3_xxs", "experts_down": "iq3_xxs", "router": "f32", "output": "q6_k"}}}
	s.Engines[0].KernelOpsPerCycle["q8_0"] = 22
	got := model.KernelFallbacks(s, w, "big")
	var lines []string
	for _, f := range got {
		lines = append(lines, f.Engine+" "+f.Type+" "+string(f.Class))
	}
	want := []string{"big iq3_xxs q4"}
	if _, ok := s.Engines[0].KernelOpsPerCycle["q6_k"]; !ok {
		want = append(want, "big q6_k q6")
	}
	if strings.Join(lines, ",") != strings.Join(want, ",") {
		t.Errorf("fallbacks %v, want %v", lines, want)
	}
	if all := model.KernelFallbacks(s, w); len(all) <= len(got) {
		t.Errorf("every engine: %d fallbacks, the big one alone %d", len(all), len(got))
	}
}

// TestKernelTableKeys: a kernel table may name GGML types beside the
// classes; any other key is refused with its path.
func TestKernelTableKeys(t *testing.T) {
	s := presetSoCsOne(t, "rk3588")
	s.Engines[0].KernelOpsPerCycle["iq4_xs"] = 12
	if err := s.Validate(); err != nil {
		t.Errorf("iq4_xs: %v", err)
	}
	s.Engines[0].KernelOpsPerCycle["q3"] = 12
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "engines[0].kernel_ops_per_cycle.q3: unknown kernel class or GGML type") {
		t.Errorf("q3: %v", err)
	}
	delete(s.Engines[0].KernelOpsPerCycle, "q3")
	s.Engines[0].KernelOpsPerCycle["q2_k"] = -1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "kernel_ops_per_cycle.q2_k") {
		t.Errorf("negative q2_k: %v", err)
	}
}
