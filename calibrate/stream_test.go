package calibrate

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/model"
)

// TestStreamWorkload: the f32 variant has f32 experts and at least the
// workload's expert bytes, within the cap; there is none for a workload
// without experts or one whose single layer is over the cap.
func TestStreamWorkload(t *testing.T) {
	for _, tc := range []struct {
		name     string
		llc, max int64 // the calibration workload's sizing
		cap      int64 // StreamWorkload's
		want     bool
	}{
		{"the build VM's 508 MiB L3", 508 << 20, 1536 << 20, StreamMaxBytes, true},
		{"a board's 3 MiB", 3 << 20, 1536 << 20, StreamMaxBytes, true},
		{"a cap under one f32 layer", 508 << 20, 1536 << 20, 64 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := dispatch.CalibrationWorkload(tc.llc, tc.max)
			s := StreamWorkload(w, tc.cap)
			if (s != nil) != tc.want {
				t.Fatalf("StreamWorkload: %v, want one: %v", s != nil, tc.want)
			}
			if s == nil {
				return
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Name != w.Name+"-f32" || s.Model.BitsPerWeight.ExpertsUp != 32 || s.Model.BitsPerWeight.ExpertsDown != 32 {
				t.Errorf("%s: experts at %v/%v bits, want f32", s.Name, s.Model.BitsPerWeight.ExpertsUp, s.Model.BitsPerWeight.ExpertsDown)
			}
			for _, o := range s.Ops(0) {
				if o.Kind == model.ExpertMatmul && o.Class != model.ClassF32 {
					t.Errorf("op %s: class %s, want f32", o.Name, o.Class)
				}
			}
			em, _ := dispatch.LayerBytes(w)
			es, all := dispatch.LayerBytes(s)
			if got, want := int64(s.Model.Layers)*es, int64(w.Model.Layers)*em; got < want {
				t.Errorf("f32 experts %d bytes, the workload's %d: want at least as many", got, want)
			}
			if int64(s.Model.Layers)*all > tc.cap || (s.Model.Layers-1)*int(es) >= w.Model.Layers*int(em) {
				t.Errorf("%d layers of %d bytes: over the cap %d or more than needed", s.Model.Layers, all, tc.cap)
			}
			if w.Model.BitsPerWeight.ExpertsUp == 32 {
				t.Errorf("StreamWorkload changed its argument")
			}
		})
	}
	if StreamWorkload(nil, StreamMaxBytes) != nil {
		t.Errorf("a nil workload has an f32 variant")
	}
	dense := *dispatch.CalibrationWorkload(3<<20, 0)
	dense.Model.MoE.Experts, dense.Model.MoE.TopK = 0, 0
	if StreamWorkload(&dense, StreamMaxBytes) != nil {
		t.Errorf("a workload without experts has an f32 variant")
	}
}

// TestGridStreamPoints: the full fit grid runs each engine alone on f32
// experts at the decode-like shape, as steps of the f32 workload; the
// quick grid and the held-out grid do not.
func TestGridStreamPoints(t *testing.T) {
	w := dispatch.CalibrationWorkload(3<<20, 0)
	gemv, _, _ := Shapes(w)
	two := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{4, 5, 6, 7}}, {Name: "little", CPUs: []int{0, 1, 2, 3}}})
	one := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{0, 1}}})
	for _, tc := range []struct {
		name string
		s    Settings
		want []string
	}{
		{"two clusters, full", Settings{Engines: two, Workload: w, Grid: BothGrids},
			[]string{"native poll=50 t=4 pp64 ub=2 f32 weights", "native little poll=50 t=4 pp64 ub=2 f32 weights"}},
		{"one cluster, full", Settings{Engines: one, Workload: w},
			[]string{"native poll=50 t=1 pp64 ub=2 f32 weights", "native poll=50 t=2 pp64 ub=2 f32 weights"}},
		{"two clusters, quick", Settings{Engines: two, Workload: w, Quick: true}, nil},
		{"two clusters, held out", Settings{Engines: two, Workload: w, Grid: HeldOutGrid}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pts, err := Points(&tc.s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range pts {
				if p.Stream {
					got = append(got, p.String())
					if p.Run != gemv && *p.Run != *gemv || p.Set != FitGrid {
						t.Errorf("%s: shape %v in set %s, want the decode-like %v in the fit grid", p, p.Run, p.Set, gemv)
					}
				}
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("f32 points %q, want %q", got, tc.want)
			}
			if len(tc.want) == 0 {
				return
			}
			tc.s.NoMicro, tc.s.Rounds = true, 1
			steps, err := DispatcherSteps(&tc.s, "main")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, st := range steps {
				if strings.Contains(st.ID, "f32 weights") {
					n++
					if !strings.HasPrefix(st.ID, "dispatcher/"+w.Name+"-f32/") {
						t.Errorf("step %s: want it to run %s-f32", st.ID, w.Name)
					}
				} else if !strings.HasPrefix(st.ID, "dispatcher/"+w.Name+"/") {
					t.Errorf("step %s: want it to run %s", st.ID, w.Name)
				}
			}
			if n != len(tc.want) {
				t.Errorf("%d f32 steps in one round, want %d", n, len(tc.want))
			}
		})
	}
}

// TestStreamStepRecordsItsWorkload: a step of an f32 point runs the f32
// workload and records it (name and YAML), so that the fit predicts it on
// its own weights; the other steps record the workload's own.
func TestStreamStepRecordsItsWorkload(t *testing.T) {
	skipShort(t)
	w := dispatch.CalibrationWorkload(0, 0)
	w.Model.Hidden, w.Model.Vocab, w.Model.MoE.Experts, w.Model.MoE.ExpertFFN = 128, 256, 8, 64
	w.Model.Layers = 2
	s := &Settings{Engines: NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{1}}, {Name: "little", CPUs: []int{0}}}),
		Workload: w, NoMicro: true, Rounds: 1, Repeats: 1, FixedRepeats: true}
	y, err := model.MarshalWorkload(w)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := DispatcherSteps(s, string(y))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, st := range steps {
		if !strings.Contains(st.ID, "f32 weights") && ran > 0 {
			continue
		}
		m, err := st.run()
		if err != nil {
			t.Fatalf("%s: %v", st.ID, err)
		}
		stream := strings.Contains(st.ID, "f32 weights")
		rw, err := model.ParseWorkload([]byte(m.WorkloadYAML), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stream != (m.Workload == w.Name+"-f32") || rw.Name != m.Workload || stream != (rw.Model.BitsPerWeight.ExpertsUp == 32) {
			t.Errorf("%s: recorded workload %s, experts at %v bits", st.ID, m.Workload, rw.Model.BitsPerWeight.ExpertsUp)
		}
		if !(m.Median > 0) {
			t.Errorf("%s: %v t/s", st.ID, m.Median)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d steps, want the first and the two f32 ones", ran)
	}
}
