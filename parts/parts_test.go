package parts_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// spec is the ten-line SoC: a spec sheet's cores, clocks, memory
// and L3, nothing else.
const spec = `schema: blsim/soc/v1
name: my-board
shared_cache_kib: 3072
dram: {type: lpddr4x, bus_bits: 64, mt_s: 4224}
engines:
  - {name: big, core: cortex-a76, cores: 4, clock_ghz: 2.4}
  - {name: little, core: cortex-a55, cores: 4, clock_ghz: 1.8}
`

// TestLibrary: every part file loads, and every value in it has a source:
// a comment of its own, or of the key that heads its group.
func TestLibrary(t *testing.T) {
	if err := parts.Check(); err != nil {
		t.Fatal(err)
	}
	if len(parts.Cores()) < 2 || len(parts.Memories()) < 6 {
		t.Fatalf("cores %v, memories %v", parts.Cores(), parts.Memories())
	}
	identity := map[string]bool{"schema": true, "name": true, "title": true, "aliases": true, "vendor": true, "arch": true}
	for _, n := range parts.Names() {
		b, err := parts.Data(n)
		if err != nil {
			t.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(b, &root); err != nil {
			t.Fatal(err)
		}
		for _, path := range leaves(root.Content[0], "") {
			if identity[path] {
				continue
			}
			var note string
			if c, err := parts.LookupCore(n); err == nil {
				note = c.Note(path)
			} else if m, err := parts.LookupMemory(n); err == nil {
				note = m.Note(path)
			} else {
				note = "runtime" // checked below through a resolved SoC
			}
			if note == "" {
				t.Errorf("%s: %s has no source (a comment on it or heading its group)", n, path)
			}
			// --resolved shows one value's note alone: a note that points
			// elsewhere in the file names no source there.
			if l := strings.ToLower(note); strings.Contains(l, "as above") || strings.Contains(l, "same file") {
				t.Errorf("%s: %s: %q points elsewhere in the file; name the source", n, path, note)
			}
		}
	}
}

func leaves(n *yaml.Node, path string) []string {
	if n.Kind != yaml.MappingNode {
		return []string{path}
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := n.Content[i].Value
		if path != "" {
			p = path + "." + p
		}
		out = append(out, leaves(n.Content[i+1], p)...)
	}
	return out
}

// TestResolveSpec: the ten-line spec resolves into a complete SoC; every
// value says where it came from, the file's values win, and the DRAM's
// peak is the bus times the rate.
func TestResolveSpec(t *testing.T) {
	if n := strings.Count(spec, "\n"); n > 10 {
		t.Fatalf("the spec has %d lines; the issue asks for at most 10", n)
	}
	s, res, err := model.ResolveSoC([]byte(spec), "my.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.DRAM.PeakGBs, 33.8; got != want {
		t.Errorf("peak %g, want %g (64/8 x 4224 MT/s)", got, want)
	}
	if got := s.DRAM.SustainedGBs; math.Abs(got-0.62*33.8) > 0.05 {
		t.Errorf("sustained %g, want lpddr4x's 0.62 of the peak", got)
	}
	big := s.Engines[0]
	if big.ClockGHz != 2.4 || big.KernelOpsPerCycle["q4_k"] != 28 || big.GemvOverlap != 0.73 || big.SharedCacheKiB != 3072 {
		t.Errorf("big: clock %g, q4_k %g, gemv_overlap %g, shared cache %g", big.ClockGHz, big.KernelOpsPerCycle["q4_k"], big.GemvOverlap, big.SharedCacheKiB)
	}
	for path, want := range map[string]parts.Layer{
		"engines.big.clock_ghz":                    parts.FromFile,
		"engines.big.kernel_ops_per_cycle.q4_k":    parts.FromPart,
		"engines.little.gemv_overlap":              parts.FromPart,
		"dram.peak_gb_s":                           parts.FromPart,
		"handoff.futex_wake_us":                    parts.FromPart,
		"uncertainty.engines.big.gemv_overlap":     parts.FromPart,
		"engines.little.bandwidth_per_thread_gb_s": parts.FromPart,
	} {
		if got := res.Of(path); got.Layer != want || got.Layer == parts.FromPart && (got.Part == "" || got.Note == "") {
			t.Errorf("%s: source %+v, want layer %s with a part and a note", path, got, want)
		}
	}
	// Every numeric parameter of the SoC has a recorded source, but for
	// optional ones left at their default.
	for _, p := range s.Params() {
		v, _ := s.Get(p)
		if src := res.Of(p); src.Layer == parts.FromDefault && v != 0 {
			t.Errorf("%s = %g: no source recorded", p, v)
		}
	}

	// The file overrides what the part gives, and says so.
	over := strings.Replace(spec, "clock_ghz: 2.4}", "clock_ghz: 2.4, gemv_overlap: 0.5, kernel_ops_per_cycle: {q4_k: 30}}", 1)
	s, res, err = model.ResolveSoC([]byte(over), "my.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Engines[0]; e.GemvOverlap != 0.5 || e.KernelOpsPerCycle["q4_k"] != 30 || e.KernelOpsPerCycle["q6_k"] != 22 {
		t.Errorf("overrides: gemv_overlap %g, q4_k %g, q6_k %g; want 0.5, 30 and the part's 22", e.GemvOverlap, e.KernelOpsPerCycle["q4_k"], e.KernelOpsPerCycle["q6_k"])
	}
	if src := res.Of("engines.big.gemv_overlap"); src.Layer != parts.FromFile || src.Line != 6 {
		t.Errorf("overridden gemv_overlap: %+v, want the file's line 6", src)
	}
	if _, ok := s.Uncertainty["engines.big.gemv_overlap"]; ok {
		t.Errorf("the part's uncertainty of a value the file overrides was kept")
	}
}

// TestModelParsesSpec: model.ParseSoC reads a file that names parts when
// the parts package is linked, to the same SoC as Resolve.
func TestModelParsesSpec(t *testing.T) {
	a, err := model.ParseSoC([]byte(spec), "my.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := model.ResolveSoC([]byte(spec), "my.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ab, _ := model.MarshalSoC(a)
	bb, _ := model.MarshalSoC(b)
	if string(ab) != string(bb) {
		t.Errorf("model.ParseSoC\n%s\nparts.Resolve\n%s", ab, bb)
	}
	// A resolved SoC written out reads back to itself.
	back, err := model.ParseSoC(ab, "back.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if bb2, _ := model.MarshalSoC(back); string(bb2) != string(ab) {
		t.Errorf("round trip changed the SoC")
	}
}

// TestCalibrationLayer: a fitted profile's measured values are the
// calibration's; the rest keep their layer.
func TestCalibrationLayer(t *testing.T) {
	prof := spec + `provenance:
  source: fit
  host: board
  date: "2026-12-01"
  measured: [engines.big.kernel_ops_per_cycle.q4_k, dram.sustained_gb_s]
`
	_, res, err := model.ResolveSoC([]byte(prof), "profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]parts.Layer{
		"engines.big.kernel_ops_per_cycle.q4_k": parts.FromCalibration,
		"dram.sustained_gb_s":                   parts.FromCalibration,
		"engines.big.kernel_ops_per_cycle.q6_k": parts.FromPart,
		"engines.big.clock_ghz":                 parts.FromFile,
	} {
		if got := res.Of(path); got.Layer != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if got := res.Of("dram.sustained_gb_s").Note; !strings.Contains(got, "host board") {
		t.Errorf("calibration note %q: want the fit's host", got)
	}
}

// TestBadInput: each mistake is one line naming the file, line and field,
// and an unknown part names the nearest known ones.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"unknown core", "core: cortex-a76", "core: cortex-a75", []string{"my.yaml:6:", "engines[0].core", `unknown core "cortex-a75"`, "nearest: ", "cortex-a76"}},
		{"unknown memory", "type: lpddr4x", "type: lpdr4x", []string{"my.yaml:4:", "dram.type", `unknown memory type "lpdr4x"`, "nearest: lpddr4x"}},
		{"clock in MHz", "clock_ghz: 2.4}", "clock_ghz: 2400}", []string{"my.yaml:6:", "engines[0].clock_ghz", "in MHz? 2400 MHz is 2.4 GHz"}},
		{"clock with a unit", "clock_ghz: 2.4}", "clock_ghz: 2.4GHz}", []string{"my.yaml:6:", "engines[0].clock_ghz", `want a number in GHz (the key's unit), got "2.4GHz"`}},
		{"rate in GT/s", "mt_s: 4224", "mt_s: 4.224", []string{"my.yaml:4:", "dram.mt_s", "in GT/s? 4.224 GT/s is 4224 MT/s"}},
		{"overlap out of range", "clock_ghz: 2.4}", "clock_ghz: 2.4, gemv_overlap: 1.5}", []string{"engines[0].gemv_overlap", "outside [0, 1]"}},
		{"no bus", "bus_bits: 64, ", "", []string{"my.yaml:4:", "needs bus_bits and mt_s"}},
		{"unknown controller", "mt_s: 4224}", "mt_s: 4224, controller: rockchp}", []string{"dram.controller", `unknown controller "rockchp"`, "rockchip"}},
		{"overlap as a percentage", "clock_ghz: 2.4}", "clock_ghz: 2.4, gemv_overlap: 73}", []string{"my.yaml:6:", "engines[0].gemv_overlap", "a fraction, not a percentage: 73% is 0.73"}},
		{"stream in MB/s", "clock_ghz: 2.4}", "clock_ghz: 2.4, bandwidth_per_thread_gb_s: 14400}", []string{"my.yaml:6:", "bandwidth_per_thread_gb_s", "in MB/s? 14400 MB/s is 14.4 GB/s"}},
		{"L2 in bytes", "clock_ghz: 2.4}", "clock_ghz: 2.4, l2_kib_per_core: 524288}", []string{"my.yaml:6:", "l2_kib_per_core", "in bytes? 524288 B is 512 KiB"}},
		{"L3 in bytes", "shared_cache_kib: 3072", "shared_cache_kib: 3145728", []string{"my.yaml:3:", "shared_cache_kib", "in bytes? 3145728 B is 3072 KiB"}},
		{"bus not whole channels", "bus_bits: 64", "bus_bits: 40", []string{"my.yaml:4:", "dram.bus_bits", "not a whole number of lpddr4x's 16-bit channels"}},
		{"rate of another type", "mt_s: 4224", "mt_s: 8533", []string{"my.yaml:4:", "dram.mt_s", "far outside lpddr4x's 1600-4266 MT/s", "lpddr5x"}},
		{"a part value out of range", "shared_cache_kib: 3072\n", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := model.ResolveSoC([]byte(strings.Replace(spec, tc.old, tc.new, 1)), "my.yaml")
			if tc.want == nil {
				if err != nil {
					t.Fatalf("no shared cache: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
					t.Errorf("error %q: want one line with %q", msg, w)
				}
			}
		})
	}
	// A value the part gives that the file's DRAM makes impossible says
	// which part gave it.
	tiny := strings.Replace(spec, "{type: lpddr4x, bus_bits: 64, mt_s: 4224}", "{type: lpddr4x, bus_bits: 64, mt_s: 4224, peak_gb_s: 33.8, sustained_gb_s: 20}", 1)
	tiny = strings.Replace(tiny, "cores: 4, clock_ghz: 2.4}", "cores: 4, clock_ghz: 2.4, bandwidth_per_thread_gb_s: 50}", 1)
	if _, _, err := model.ResolveSoC([]byte(tiny), "my.yaml"); err != nil {
		t.Errorf("per-thread stream above sustained: %v (the cluster cap is the least of them)", err)
	}
}

// TestMissingRateWarns: a type the core part has no rate for runs at its
// class's rate, and the model says so (the warning predict prints).
func TestMissingRateWarns(t *testing.T) {
	s, _, err := model.ResolveSoC([]byte(spec), "my.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Engines[0].KernelOpsPerCycle["q5_k"]; ok {
		t.Fatalf("cortex-a76 has a q5_k rate; pick another type for this test")
	}
	w := &model.Workload{Model: model.Arch{Types: map[string]string{"expert": "q5_k"}}}
	fb := model.KernelFallbacks(s, w, "big")
	if len(fb) == 0 || fb[0].Type != "q5_k" || fb[0].Class != "q6" {
		t.Errorf("fallbacks %+v: want q5_k at the q6 class's rate", fb)
	}
}
