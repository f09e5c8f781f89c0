package presets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

func TestSeedMeasurements(t *testing.T) {
	ms, errs := measure.ReadChecked(bytes.NewReader(SeedMeasurements()), "seed-rk3588.jsonl", nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(ms) != 2 {
		t.Fatalf("%d measurements, want 2", len(ms))
	}
	want := map[string]float64{"native poll=50": 26.26, "token f=0.12 poll=50": 26.24}
	for _, m := range ms {
		if m.Kind != measure.Reported || m.SoC != "rk3588" || m.Workload != "qwen3.5-35b-a3b" || m.Unit != "t/s" || !m.OK() {
			t.Errorf("%s: %+v", m.ID, m)
		}
		if m.Knobs["source"] != "Exp-2026-08-17" {
			t.Errorf("%s: source %q", m.ID, m.Knobs["source"])
		}
		if v, ok := want[m.Label()]; !ok || v != m.Median {
			t.Errorf("%s: %s = %g", m.ID, m.Label(), m.Median)
		}
		if _, err := SoC(m.SoC); err != nil {
			t.Error(err)
		}
		if _, err := Workload(m.Workload); err != nil {
			t.Error(err)
		}
	}
}

// TestMeasurements: "" reads the seed's figures, a path its file, both by
// the one rule for bad lines.
func TestMeasurements(t *testing.T) {
	ms, warnings, src, err := Measurements("", nil)
	if err != nil || len(ms) != 2 || len(warnings) != 0 || src != SeedSource || ms[0].SoC != SeedSoC {
		t.Errorf("seed: %d measurements, warnings %q, source %q, %v", len(ms), warnings, src, err)
	}
	path := filepath.Join(t.TempDir(), "crashed.jsonl")
	os.WriteFile(path, append(SeedMeasurements(), `{"schema":"blsim/measurement/v1","id":"half`...), 0o644)
	ms, warnings, src, err = Measurements(path, nil)
	if err != nil || len(ms) != 2 || len(warnings) != 1 || src != path || !strings.HasPrefix(warnings[0], "skipped "+path+":3:") {
		t.Errorf("crashed file: %d measurements, warnings %q, source %q, %v", len(ms), warnings, src, err)
	}
}
