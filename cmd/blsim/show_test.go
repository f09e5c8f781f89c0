package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestShowPresets: socs show and workloads show print each embedded preset
// as YAML that parses back to the preset; an unknown name is one line
// naming the ones there are.
func TestShowPresets(t *testing.T) {
	for _, n := range presets.SoCNames() {
		out, _, code := runCLI(t, "socs", "show", n)
		want, _ := presets.SoC(n)
		got, err := model.ParseSoC([]byte(out), n)
		if code != 0 || err != nil || got.Name != want.Name || len(got.Engines) != len(want.Engines) {
			t.Errorf("socs show %s: exit %d, %v", n, code, err)
		}
	}
	for _, n := range presets.WorkloadNames() {
		out, _, code := runCLI(t, "workloads", "show", n)
		got, err := model.ParseWorkload([]byte(out), n)
		if code != 0 || err != nil || got.Name != n {
			t.Errorf("workloads show %s: exit %d, %v", n, code, err)
		}
	}
	if _, stderr, code := runCLI(t, "socs", "show", "rk9999"); code == 0 || !strings.Contains(stderr, "rk3588") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("unknown preset: exit %d, %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "blsim ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
