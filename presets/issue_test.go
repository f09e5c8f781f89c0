package presets

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestIssuePresets: every chip issue 25 names has a preset built on the
// parts: each CPU cluster names a core part, the memory names a type, and
// the spec-sheet values (core, cores and clock; the memory's type, bus and
// rate) carry the file's comment, their provenance, which `blsim socs show
// NAME --resolved` prints beside them.
func TestIssuePresets(t *testing.T) {
	chips := []string{"rk3576", "pi5", "cix-p1", "qcs6490", "sc8280xp", "snapdragon-8-gen2", "snapdragon-8-gen3",
		"snapdragon-8-elite", "snapdragon-x-elite", "dimensity-9300", "jetson-orin", "apple-m1", "apple-m2-pro",
		"apple-m4-pro", "i9-13900k", "core-ultra-7-155h", "i3-1315u", "ryzen-9-7950x", "ryzen-7-5700g", "ryzen-ai-9-hx-370"}
	hypothetical := map[string]bool{"balanced": true, "ddr5": true, "rk3588-lp5": true, "rk3588-npu": true}
	real := 0
	for _, n := range SoCNames() {
		if !hypothetical[n] {
			real++
		}
	}
	if real < 15 {
		t.Errorf("%d presets of real chips, want at least 15", real)
	}
	for _, n := range chips {
		t.Run(n, func(t *testing.T) {
			data, err := SoCData(n)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "#") {
				t.Errorf("no provenance comment heading the file")
			}
			s, res, err := model.ResolveSoC(data, n+".yaml")
			if err != nil {
				t.Fatal(err)
			}
			if s.DRAM.Type == "" {
				t.Errorf("dram names no memory type")
			}
			// A comment may head a group of values (the cores and their
			// clock): each cluster's spec-sheet values, and the memory's,
			// carry at least one.
			groups := [][]string{{"dram.type", "dram.bus_bits", "dram.mt_s"}}
			for _, e := range s.Engines {
				if e.IsAccelerator() {
					continue
				}
				if e.Core == "" {
					t.Errorf("engine %s names no core part", e.Name)
				}
				p := "engines." + e.Name + "."
				groups = append(groups, []string{p + "core", p + "cores", p + "clock_ghz"})
			}
			for _, g := range groups {
				noted := false
				for _, p := range g {
					if src := res.Of(p); src.Layer == "file" && src.Note != "" {
						noted = true
					}
				}
				if !noted {
					t.Errorf("none of %v carries a comment of the file", g)
				}
			}
		})
	}
}
