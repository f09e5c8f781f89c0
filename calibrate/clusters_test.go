package calibrate

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// A calibration's records name its clusters, as Open found them; read
// back from the file (the scanner's fast path), they rebuild the same
// engines and so the same prior: rk3588 (three clusters, caches),
// i7-1260p (hybrid, SMT P-cores), xeon-silver-4108 (SMT).
func TestRecordedEngines(t *testing.T) {
	w := calibWorkload(t)
	yaml, err := model.MarshalWorkload(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"rk3588", "i7-1260p", "xeon-silver-4108"} {
		t.Run(host, func(t *testing.T) {
			given := &measure.Host{Name: "box"}
			c, err := Open(Run{SysRoot: filepath.Join("topology", "testdata", host), Settings: Settings{Host: given}})
			if err != nil {
				t.Fatal(err)
			}
			if len(given.Clusters) != 0 {
				t.Errorf("Open changed the caller's host: %+v", given.Clusters)
			}
			if len(c.Host.Clusters) != len(c.Engines) {
				t.Fatalf("host records %d clusters, %d engines", len(c.Host.Clusters), len(c.Engines))
			}
			var lines []string
			for _, kind := range []string{measure.Kernel, measure.Dispatcher} {
				m := measure.Measurement{Schema: measure.Schema, ID: kind, Kind: kind, Unit: "x", Median: 1, Status: measure.StatusOK, Host: c.Host}
				if kind == measure.Dispatcher {
					m.Workload, m.WorkloadYAML = w.Name, string(yaml)
					p := model.NewNative(c.Engines[0].Cluster.Name, 1, 50)
					m.Plan = &p
				}
				b, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, string(b))
			}
			ms, errs := measure.ReadChecked(strings.NewReader(strings.Join(lines, "\n")+"\n"), "runs.jsonl", nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			es, ok, err := RecordedEngines(ms)
			if !ok || err != nil {
				t.Fatalf("RecordedEngines: %v, %v", ok, err)
			}
			if !reflect.DeepEqual(es, c.Engines) {
				t.Errorf("recorded engines %+v,\nOpen's %+v", es, c.Engines)
			}
			rw, err := RecordedWorkload(ms)
			if err != nil || rw == nil || rw.Name != w.Name {
				t.Fatalf("RecordedWorkload: %v, %v", rw, err)
			}
			if a, b := Prior("box", es, ms, rw), Prior("box", c.Engines, ms, w); !reflect.DeepEqual(a, b) {
				t.Errorf("the prior from the records differs from calibrate's")
			}
		})
	}
}

func TestRecordedEnginesRefused(t *testing.T) {
	a := &measure.Host{Clusters: []measure.Cluster{{Name: "big", CPUs: []int{0, 1}}}}
	b := &measure.Host{Clusters: []measure.Cluster{{Name: "big", CPUs: []int{2, 3}}}}
	if _, ok, err := RecordedEngines([]measure.Measurement{{ID: "x"}, {ID: "y", Host: &measure.Host{Name: "old"}}}); ok || err != nil {
		t.Errorf("no clusters recorded: ok %v, %v", ok, err)
	}
	_, _, err := RecordedEngines([]measure.Measurement{{ID: "x", Host: a}, {ID: "y"}, {ID: "z", Host: b}})
	if err == nil || !strings.Contains(err.Error(), "record z") || !strings.Contains(err.Error(), "big=2-3") || !strings.Contains(err.Error(), "two machines") {
		t.Errorf("two machines' clusters: %v", err)
	}
}

func TestRecordedWorkload(t *testing.T) {
	w := calibWorkload(t)
	f32 := StreamWorkload(w, StreamMaxBytes)
	other := *w
	other.Name = "other"
	run := func(w *model.Workload) measure.Measurement {
		y, err := model.MarshalWorkload(w)
		if err != nil {
			t.Fatal(err)
		}
		return measure.Measurement{Kind: measure.Dispatcher, Workload: w.Name, WorkloadYAML: string(y)}
	}
	if got, err := RecordedWorkload([]measure.Measurement{run(f32), run(w), run(f32)}); err != nil || got == nil || got.Name != w.Name {
		t.Errorf("a workload and its f32 variant: %v, %v; want %s", got, err, w.Name)
	}
	if got, err := RecordedWorkload([]measure.Measurement{{Kind: measure.Kernel}}); got != nil || err != nil {
		t.Errorf("no dispatcher runs: %v, %v", got, err)
	}
	if _, err := RecordedWorkload([]measure.Measurement{run(w), run(&other)}); err == nil || !strings.Contains(err.Error(), "2 workloads") {
		t.Errorf("two workloads: %v", err)
	}
}

// calibWorkload is the workload a calibration runs by default.
func calibWorkload(t *testing.T) *model.Workload {
	t.Helper()
	w, err := presets.Workload("synthetic-moe-calib")
	if err != nil {
		t.Fatal(err)
	}
	return w
}
