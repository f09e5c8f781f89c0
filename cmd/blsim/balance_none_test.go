package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// blsim predict says when a split has no balance point, and why, in the
// table and in --json, never a NaN share (issue 29): on rk3588 with a
// little cluster at the profile's lowest clock and 0.01 GB/s, one thread
// of it takes longer than big even at the smallest token share.
func TestPredictBalanceNone(t *testing.T) {
	s, err := presets.LoadSoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	s = s.Clone()
	s.Name = "rk3588-slow-little"
	for path, v := range map[string]float64{"engines.little.clock_ghz": 0.05, "engines.little.bandwidth_max_gb_s": 0.01} {
		if err := s.Set(path, v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := model.MarshalSoC(s)
	if err != nil {
		t.Fatal(err)
	}
	soc := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(soc, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "predict", "--soc", soc, "--engine-threads", "4,1", "--split", "token")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "token-split balance point: none (little takes longer over the split ops than big even with a share of 0.001)"; !strings.Contains(out, want) {
		t.Errorf("predict does not say %q:\n%s", want, out)
	}
	js, errs, code := runCLI(t, "predict", "--soc", soc, "--engine-threads", "4,1", "--split", "token", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	if n := strings.Count(js, `"none": "little takes longer`); n != 1 {
		t.Errorf("--json says none %d times, want 1", n)
	}
	for _, o := range []string{out, js} {
		if strings.Contains(o, "NaN") {
			t.Errorf("a NaN in the output:\n%s", o)
		}
	}
}
