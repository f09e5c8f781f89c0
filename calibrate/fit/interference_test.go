package fit

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// loadCDispatch is the C dispatcher's recorded grid (88 runs of 44
// configurations on two one-core engines, big on cpu1, little on cpu0) and
// its prior: a fit that passes Check.
func loadCDispatch(t *testing.T) ([]measure.Measurement, func() *Result) {
	t.Helper()
	prior, ms := loadRecorded(t, "testdata/cdispatch/prior.yaml", "../../cmd/blsim/testdata/cdispatch/workload.yaml", "testdata/cdispatch/grid.jsonl", 88)
	return ms, func() *Result {
		r, err := Fit(prior, ms, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// loadOn marks m as run with another process on cpu0 for other percent
// of its time, flagged Disturbed when stayed, and slows it as a pool
// sharing that CPU slows.
func loadOn(m *measure.Measurement, other float64, stayed bool) {
	m.Interference = &measure.Interference{WallS: 1, Used: []int{1, 0}, Reruns: 2, Disturbed: stayed,
		CPUs: []measure.CPULoad{{CPU: 0, OwnPct: 100 - other, OtherPct: other}, {CPU: 1, OwnPct: 100}}}
	for i := range m.Samples {
		m.Samples[i] *= 1 - other/100
	}
	m.Median *= 1 - other/100
}

// TestInterferenceRefusal: a busy loop on cpu0 throughout a calibration
// (every split run, whose little engine is on cpu0, stayed disturbed): the
// fit keeps them out and refuses, naming the CPU and the share others
// took, never the model.
func TestInterferenceRefusal(t *testing.T) {
	ms, fitIt := loadCDispatch(t)
	for i := range ms {
		if ms[i].Plan.Mode != "native" {
			loadOn(&ms[i], 48, true)
		}
	}
	r := fitIt()
	if len(r.Disturbed) != 40 || len(r.Residuals) != 4 {
		t.Fatalf("%d configurations kept out, %d fitted; want 40 and 4", len(r.Disturbed), len(r.Residuals))
	}
	err := r.Check()
	var ie *InterferenceError
	if !errors.As(err, &ie) {
		t.Fatalf("Check = %v, want an *InterferenceError", err)
	}
	msg := err.Error()
	for _, want := range []string{"other processes disturbed the runs", "40 of 44 configurations stayed disturbed after 2 re-runs",
		"40 configurations had another process on cpu0 for 48% of their time", "re-run on a quiet machine"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "disagree") || strings.Contains(msg, "--stat best") {
		t.Errorf("message blames the model or suggests --stat best for a load that never paused:\n%s", msg)
	}
	// Every run disturbed: nothing to fit, and the fit says why.
	for i := range ms {
		loadOn(&ms[i], 30, true)
	}
	if _, err := Fit(prior0(t), ms, Options{}); !errors.As(err, &ie) || len(ie.Disturbed) != 44 {
		t.Errorf("every run disturbed: err %v", err)
	}
}

func prior0(t *testing.T) *model.SoC {
	p, _ := loadRecorded(t, "testdata/cdispatch/prior.yaml", "../../cmd/blsim/testdata/cdispatch/workload.yaml", "testdata/cdispatch/grid.jsonl", 88)
	return p
}

// TestInterferenceFewKeptOut: a few configurations disturbed to the end
// are kept out of the fit, which goes on and says so; a configuration with
// one disturbed run and one quiet run takes the quiet one.
func TestInterferenceFewKeptOut(t *testing.T) {
	ms, fitIt := loadCDispatch(t)
	first := map[string]int{}
	var ids []string
	for i := range ms {
		k := configKey(&ms[i])
		if n, seen := first[k]; seen {
			if len(ids) < 3 { // both runs of 3 configurations
				loadOn(&ms[n], 50, true)
				loadOn(&ms[i], 50, true)
				ids = append(ids, k)
			} else if len(ids) < 6 { // one run of 3 more
				loadOn(&ms[i], 50, true)
				ids = append(ids, k)
			}
			continue
		}
		first[k] = i
	}
	r := fitIt()
	if len(r.Disturbed) != 3 || len(r.Residuals) != 41 {
		t.Fatalf("%d kept out, %d fitted; want 3 and 41", len(r.Disturbed), len(r.Residuals))
	}
	if err := r.Check(); err != nil {
		t.Errorf("Check = %v", err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "kept out of the fit, disturbed to the end by other processes: 3 configurations had another process on cpu0 for 50% of their time") {
		t.Errorf("text:\n%s", b.String())
	}
	// The 3 with one quiet run: merged to the quiet run's value.
	merged := Merge(ms, Median)
	for _, m := range merged {
		for _, k := range ids[3:] {
			if configKey(&m) == k && (m.Knobs["runs"] != "" || m.Interference != nil && m.Interference.Disturbed) {
				t.Errorf("%s merged from %s runs, interference %+v: want the quiet run alone", m.Label(), m.Knobs["runs"], m.Interference)
			}
		}
	}
}

// TestPoorFitTold: a poor fit whose worst configurations were slowed by
// other processes (below the re-run threshold, but enough to explain
// their errors) is told as interference, with the figures; errors larger
// than the others could cause, runs faster than predicted, and runs with
// no record of others are the model's.
func TestPoorFitTold(t *testing.T) {
	row := func(err, other float64) Residual {
		return Residual{Label: "token f=0.3 poll=0", ErrPct: err, OtherPct: other, OtherCPU: 0, Reruns: 1}
	}
	for _, tc := range []struct {
		name     string
		rows     []Residual
		wantLoad bool
	}{
		{"slowed by others", []Residual{row(40, 30), row(35, 28), row(-5, 0), row(2, 0)}, true},
		{"one of the worst slowed", []Residual{row(40, 30), row(35, 0), row(-30, 0), row(2, 0)}, false},
		{"errors past what others explain", []Residual{row(40, 3), row(35, 3), row(30, 3), row(2, 0)}, false},
		{"faster than predicted", []Residual{row(-40, 30), row(-35, 28), row(-30, 30), row(2, 0)}, false},
		{"nothing recorded", []Residual{row(40, 0), row(35, 0), row(30, 0), row(2, 0)}, false},
	} {
		r := &Result{Residuals: tc.rows, MAPE: 20}
		err := r.Check()
		var ie *InterferenceError
		var pe *PoorFitError
		switch {
		case tc.wantLoad && (!errors.As(err, &ie) || ie.Poor == nil || !strings.Contains(err.Error(), "token f=0.3 poll=0 +40.0% (cpu0 30% others, re-run once)")):
			t.Errorf("%s: %v", tc.name, err)
		case !tc.wantLoad && !errors.As(err, &pe):
			t.Errorf("%s: %v, want the model's", tc.name, err)
		}
	}
	if err := (&Result{Residuals: []Residual{row(4, 30)}, MAPE: 4}).Check(); err != nil {
		t.Errorf("a good fit: %v", err)
	}
}

// TestOldFilesMergeAsBefore: records without interference (files written
// before it was measured) merge as they did, none kept out.
func TestOldFilesMergeAsBefore(t *testing.T) {
	ms, _ := loadCDispatch(t)
	merged := Merge(ms, Median)
	clean, dist := splitDisturbed(merged)
	if len(merged) != 44 || len(clean) != 44 || len(dist) != 0 {
		t.Errorf("%d merged, %d clean, %d kept out", len(merged), len(clean), len(dist))
	}
	for _, m := range merged {
		if m.Interference != nil || m.Knobs["runs"] != "2" {
			t.Errorf("%s: runs %s, interference %+v", m.Label(), m.Knobs["runs"], m.Interference)
		}
	}
}

// stealOn marks m as run with the hypervisor taking cpu0 for steal
// percent of its time (other processes 1%), as loadOn does for other
// processes.
func stealOn(m *measure.Measurement, steal float64, stayed bool) {
	loadOn(m, steal, stayed)
	m.Interference.CPUs[0].OtherPct, m.Interference.CPUs[0].StealPct = 1, steal-1
}

// TestInterferenceRefusalSteal: the refusal of TestInterferenceRefusal
// when the hypervisor, not another process, took cpu0 (a VM whose host
// runs other guests): it names the hypervisor and what can be done about
// it, and never a process the user would look for in vain; with both, it
// names both, each with its configurations.
func TestInterferenceRefusalSteal(t *testing.T) {
	ms, fitIt := loadCDispatch(t)
	split := 0
	for i := range ms {
		if ms[i].Plan.Mode == "native" {
			continue
		}
		stealOn(&ms[i], 48, true)
		split++
	}
	var ie *InterferenceError
	err := fitIt().Check()
	if !errors.As(err, &ie) {
		t.Fatalf("Check = %v, want an *InterferenceError", err)
	}
	msg := err.Error()
	for _, want := range []string{"the hypervisor (steal) disturbed the runs (this is the machine's load, not the model)",
		"40 configurations had the hypervisor take cpu0 for 48% of their time (steal)", "another hour, or a VM with dedicated CPUs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "other processes") || strings.Contains(msg, "another process") {
		t.Errorf("message blames other processes for the hypervisor's steal:\n%s", msg)
	}
	// Half of the configurations (both their runs) a busy loop instead,
	// as much of cpu0.
	busy := map[string]bool{}
	for i := range ms {
		k := configKey(&ms[i])
		if in := ms[i].Interference; in != nil && (busy[k] || len(busy) < split/4) {
			busy[k] = true
			in.CPUs[0].OtherPct, in.CPUs[0].StealPct = 48, 0
		}
	}
	r := fitIt()
	err = r.Check()
	if !errors.As(err, &ie) {
		t.Fatalf("mixed: Check = %v, want an *InterferenceError", err)
	}
	msg = err.Error()
	for _, want := range []string{"other processes and the hypervisor (steal) disturbed the runs", "20 configurations had another process on cpu0 for 48%", "20 configurations had the hypervisor take cpu0 for 48% of their time (steal)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("mixed: message lacks %q:\n%s", want, msg)
		}
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "kept out of the fit, disturbed to the end by other processes and the hypervisor (steal): ") {
		t.Errorf("mixed: text:\n%s", b.String())
	}
}
