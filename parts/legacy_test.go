package parts_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestLegacyPresets: the rk3588 family, rebuilt on the parts, resolves to
// the profiles they were before they named parts (testdata/legacy, main at
// f864853), value for value: the seed's figures cannot move. Only the
// part names (core) and the provenance's notes differ.
func TestLegacyPresets(t *testing.T) {
	for _, name := range []string{"rk3588", "rk3588-lp5", "rk3588-npu"} {
		t.Run(name, func(t *testing.T) {
			got, err := presets.SoC(name)
			if err != nil {
				t.Fatal(err)
			}
			want := legacy(t, name)
			g := got.Clone()
			for i := range g.Engines {
				g.Engines[i].Core = ""
			}
			g.DRAM.Type, g.DRAM.BusBits, g.DRAM.MTs, g.DRAM.Controller = "", 0, 0, ""
			g.Provenance.Notes, want.Provenance.Notes = nil, nil
			if !reflect.DeepEqual(g, want) {
				gb, _ := model.MarshalSoC(g)
				wb, _ := model.MarshalSoC(want)
				t.Errorf("%s resolves to\n%s\nwant\n%s", name, gb, wb)
			}
		})
	}
}

func legacy(t *testing.T, name string) *model.SoC {
	t.Helper()
	b, err := os.ReadFile("testdata/legacy/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSoC(b, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
