package presets_test

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestPartsNote: what socs show adds below a preset that names parts: the
// uncertainties its parts fill in, which with the file's own make every
// uncertain parameter its intervals draw (ddr5 lists 6 and loads 8: its
// cores' gemv_overlap); each line a YAML comment, so the shown file still
// parses to the preset.
func TestPartsNote(t *testing.T) {
	note, err := presets.PartsNote("ddr5")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 of them uncertainties (8 in all, drawn by every interval)",
		"#   uncertainty engines.big.gemv_overlap 0.0511 (part cortex-a76)\n",
		"#   uncertainty engines.little.gemv_overlap 0.0196 (part cortex-a55)\n",
		"blsim socs show ddr5 --resolved",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("ddr5's note lacks %q:\n%s", want, note)
		}
	}
	for _, n := range presets.SoCNames() {
		note, err := presets.PartsNote(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		data, err := presets.SoCData(n)
		if err != nil {
			t.Fatal(err)
		}
		file, err := model.ParseSoC(append(data, "\n"+note...), n)
		if err != nil {
			t.Fatalf("%s with its note: %v", n, err)
		}
		want, _ := presets.SoC(n)
		// The file's own uncertainties and the note's make the preset's.
		own := 0
		for _, line := range strings.Split(string(data), "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && want.Uncertainty[k] != 0 && strings.HasPrefix(line, "  ") {
				own++
			}
		}
		if got := own + strings.Count(note, "#   uncertainty "); got != len(want.Uncertainty) {
			t.Errorf("%s: the file lists %d uncertainties and the note %d; the preset loads %d", n, own, strings.Count(note, "#   uncertainty "), len(want.Uncertainty))
		}
		if file.Name != want.Name {
			t.Errorf("%s: parsed back as %s", n, file.Name)
		}
	}
}
