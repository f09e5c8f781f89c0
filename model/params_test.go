package model_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func presetSoCs(t *testing.T) map[string]*model.SoC {
	t.Helper()
	out := map[string]*model.SoC{}
	for _, name := range presets.SoCNames() {
		s, err := presets.SoC(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = s
	}
	if len(out) == 0 {
		t.Fatal("no SoC presets")
	}
	return out
}

// TestParamsRoundTrip sets every parameter of every SoC preset to a new
// value, reads it back, and checks that nothing else moved.
func TestParamsRoundTrip(t *testing.T) {
	skipShort(t)
	for name, s := range presetSoCs(t) {
		t.Run(name, func(t *testing.T) {
			paths := s.Params()
			if len(paths) < 30 {
				t.Fatalf("only %d params: %v", len(paths), paths)
			}
			for _, want := range []string{
				"dram.sustained_gb_s", "handoff.futex_wake_us", "handoff.graph_splits_per_layer",
				"engines.big.kernel_ops_per_cycle.q4", "engines.big.cores", "engines.big.bandwidth_max_gb_s",
			} {
				if !contains(paths, want) {
					t.Errorf("Params lacks %s", want)
				}
			}
			before := values(t, s, paths)
			for i, p := range paths {
				c := s.Clone()
				x := before[i] + 3 // integers stay integers
				if err := c.Set(p, x); err != nil {
					t.Fatalf("Set(%s): %v", p, err)
				}
				got := values(t, c, paths)
				for j, q := range paths {
					want := before[j]
					if j == i {
						want = x
					}
					if got[j] != want {
						t.Errorf("after Set(%s, %g): %s = %g, want %g", p, x, q, got[j], want)
					}
				}
			}
			if after := values(t, s, paths); !equal(after, before) {
				t.Errorf("setting clones changed the preset")
			}
		})
	}
}

// TestSetRoundsIntegers: integer parameters take the nearest integer.
func TestSetRoundsIntegers(t *testing.T) {
	s := presetSoCs(t)["rk3588"]
	for _, tc := range []struct {
		name string
		set  float64
		want float64
	}{
		{"down", 6.4, 6},
		{"up", 6.6, 7},
		{"exact", 2, 2},
	} {
		c := s.Clone()
		if err := c.Set("engines.little.cores", tc.set); err != nil {
			t.Fatal(err)
		}
		if got, _ := c.Get("engines.little.cores"); got != tc.want || c.Engines[1].Cores != int(tc.want) {
			t.Errorf("%s: Set(%g) gives %g", tc.name, tc.set, got)
		}
	}
	if err := s.Clone().Set("dram.peak_gb_s", 40.25); err != nil {
		t.Fatal(err)
	}
}

func TestParamsBadPaths(t *testing.T) {
	s := presetSoCs(t)["rk3588"]
	for _, tc := range []struct {
		name, path, want string
	}{
		{"empty", "", "want dram.X"},
		{"section only", "dram", "want dram.X"},
		{"unknown section", "cache.size", "want dram.X"},
		{"unknown dram field", "dram.width", "no such numeric field"},
		{"string field", "dram.sharing", "no such numeric field"},
		{"too deep dram", "dram.peak_gb_s.x", "want dram.X"},
		{"unknown engine", "engines.huge.clock_ghz", `no engine "huge"`},
		{"engine only", "engines.big", "want dram.X"},
		{"engine string field", "engines.big.name", "no such numeric field"},
		{"map field", "engines.big.kernel_ops_per_cycle", "no such numeric field"},
		{"unknown kernel class", "engines.big.kernel_ops_per_cycle.q3", "no such kernel class"},
		{"too many parts", "engines.big.clock_ghz.x", "too many parts"},
		{"too many parts map", "engines.big.kernel_ops_per_cycle.q4.x", "too many parts"},
		{"indexed engine", "engines[0].clock_ghz", "want dram.X"},
		{"handoff typo", "handoff.futex_wake", "no such numeric field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Get(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"`+tc.path+`"`) {
				t.Errorf("Get(%q): %v, want an error naming the path and saying %q", tc.path, err, tc.want)
			}
			c := s.Clone()
			if err := c.Set(tc.path, 1); err == nil {
				t.Errorf("Set(%q) succeeded", tc.path)
			}
		})
	}
}

// TestCloneIsDeep: editing a clone's maps, slices and nested structs
// leaves the original untouched.
func TestCloneIsDeep(t *testing.T) {
	for name, s := range presetSoCs(t) {
		t.Run(name, func(t *testing.T) {
			ref := presetSoCsOne(t, name)
			c := s.Clone()
			c.Engines[0].KernelOpsPerCycle["q4"] = 999
			c.Engines[0].KernelOpsPerCycle["extra"] = 1
			c.Engines[0].ClockGHz = 9.9
			c.Engines = append(c.Engines[:1], c.Engines[0])
			c.Engines[1].Name = "renamed"
			c.DRAM.PeakGBs = 1
			c.Handoff.SpawnUS = 12345
			if c.Uncertainty != nil {
				c.Uncertainty["dram.sustained_gb_s"] = 77
				c.Uncertainty["new"] = 1
			}
			if c.Provenance != nil {
				c.Provenance.Source = "edited"
				if len(c.Provenance.Notes) > 0 {
					c.Provenance.Notes[0] = "edited"
				}
				if c.Provenance.Governors != nil {
					c.Provenance.Governors["x"] = "y"
				}
			}
			if !socEqual(s, ref) {
				t.Errorf("editing the clone changed the original:\n got %+v\nwant %+v", s, ref)
			}
		})
	}
	// Nil maps and provenance stay nil.
	s := &model.SoC{Engines: []model.Engine{{Name: "a"}}}
	c := s.Clone()
	if c.Uncertainty != nil || c.Provenance != nil || c.Engines[0].KernelOpsPerCycle != nil {
		t.Errorf("clone of empty profile: %+v", c)
	}
}

func presetSoCsOne(t *testing.T, name string) *model.SoC {
	t.Helper()
	s, err := presets.SoC(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func socEqual(a, b *model.SoC) bool {
	x, err1 := model.MarshalSoC(a)
	y, err2 := model.MarshalSoC(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func values(t *testing.T, s *model.SoC, paths []string) []float64 {
	t.Helper()
	out := make([]float64, len(paths))
	for i, p := range paths {
		v, err := s.Get(p)
		if err != nil {
			t.Fatalf("Get(%s): %v", p, err)
		}
		if math.IsNaN(v) {
			t.Fatalf("Get(%s) is NaN", p)
		}
		out[i] = v
	}
	return out
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestSetWithTypes: a class's rate carries the engine's types of that
// class that have no uncertainty of their own, by the same factor; other
// classes' types, a type with its own uncertainty, and other paths are
// set as Set does.
func TestSetWithTypes(t *testing.T) {
	s := &model.SoC{Engines: []model.Engine{{Name: "big", KernelOpsPerCycle: map[string]float64{
		"q4": 20, "q8": 10, "q4_k": 20, "iq4_xs": 8, "q4_0": 30, "q8_0": 10}}},
		Uncertainty: map[string]float64{"engines.big.kernel_ops_per_cycle.q4_0": 1}}
	if err := s.SetWithTypes("engines.big.kernel_ops_per_cycle.q4", 25); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"q4": 25, "q8": 10, "q4_k": 25, "iq4_xs": 10, "q4_0": 30, "q8_0": 10}
	if got := s.Engines[0].KernelOpsPerCycle; !reflect.DeepEqual(got, want) {
		t.Errorf("rates %v, want %v", got, want)
	}
	// A type's own rate moves alone.
	if err := s.SetWithTypes("engines.big.kernel_ops_per_cycle.q4_k", 5); err != nil {
		t.Fatal(err)
	}
	if r := s.Engines[0].KernelOpsPerCycle; r["q4_k"] != 5 || r["q4"] != 25 || r["iq4_xs"] != 10 {
		t.Errorf("rates %v after setting q4_k", r)
	}
	if err := s.SetWithTypes("engines.big.kernel_ops_per_cycle.q5", 1); err == nil {
		t.Error("a path with no parameter was set")
	}
}
