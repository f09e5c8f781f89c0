package fit

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// A job holding out some throughputs fits on the rest, scores those, and
// stamps the provenance: the source with the patterns, the runs fitted,
// the host, the governors given and the notes after the fit's own; the
// profile it writes loads back.
func TestJobRun(t *testing.T) {
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	truth := prior.Clone()
	_ = truth.Set("engines.little.kernel_ops_per_cycle.q4", 7)
	ms := synth(t, truth, rand.New(rand.NewPCG(1, 2)), 0)
	for i := range ms {
		ms[i].Host = &measure.Host{Name: "board", Kernel: "6.1", Governors: map[string]string{"policy0": "schedutil"}}
	}
	j := Job{Prior: prior, Measurements: ms, Source: "test", Holdout: []string{"f=0.3"},
		Options:   Options{Free: []string{"engines.little.kernel_ops_per_cycle.q4", "engines.big.kernel_ops_per_cycle.q4"}},
		Governors: map[string]string{"policy0": "performance"}, Notes: []string{"a note"}}
	r, v, err := j.Run()
	if err != nil {
		t.Fatal(err)
	}
	p := r.SoC.Provenance
	if v == nil || v.N != 2 || p.Runs != len(ms)-2 || p.Source != "test, holding out f=0.3" || p.Host != "board" ||
		p.Governors["policy0"] != "performance" || len(p.FittedRuns) == 0 || p.Notes[len(p.Notes)-1] != "a note" || p.Date == "" {
		t.Errorf("validation %+v, provenance %+v", v, p)
	}
	path := filepath.Join(t.TempDir(), "fitted.yaml")
	if err := WriteProfile(path, r.SoC); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if s, err := model.LoadSoCFile(path); err != nil || s.Provenance == nil || !strings.HasPrefix(string(b), "# Fitted by blsim") {
		t.Errorf("written profile: %v\n%s", err, b)
	}
	// Without a holdout: no validation, every run fitted.
	j.Holdout = nil
	if r, v, err := j.Run(); err != nil || v != nil || r.SoC.Provenance.Runs != len(ms) || r.SoC.Provenance.Source != "test" {
		t.Errorf("no holdout: %v %+v %+v", err, v, r)
	}
	// A holdout matching nothing is the fit's error, unwrapped.
	j.Holdout = []string{"f=0.99"}
	if _, _, err := j.Run(); err == nil || strings.Contains(err.Error(), "--") {
		t.Errorf("holdout matching nothing: %v", err)
	}
	bad := r.SoC.Clone()
	bad.Engines = nil
	if err := WriteProfile(filepath.Join(t.TempDir(), "x.yaml"), bad); err == nil || !strings.HasPrefix(err.Error(), "fitted profile: ") {
		t.Errorf("an invalid profile: %v", err)
	}
}
