package parts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
)

// TestRepackedGemvEfficiency: a core's repacked one-token share becomes
// the engine's gemv_efficiency_by_type for each of its repacked types
// (those the file lists where it narrows them), with its source; a file
// value wins key by key; a core that gives none gives no map.
func TestRepackedGemvEfficiency(t *testing.T) {
	m4, err := parts.LookupCore("apple-m4-p")
	if err != nil {
		t.Fatal(err)
	}
	if m4.RepackedGemvEfficiency <= 0 || m4.RepackedGemvEfficiency >= 1 {
		t.Fatalf("apple-m4-p repacked_gemv_efficiency %g", m4.RepackedGemvEfficiency)
	}
	soc := "schema: blsim/soc/v1\nname: t\ndram: {type: lpddr5x, bus_bits: 128, mt_s: 7500}\nengines:\n  - {name: big, core: apple-m4-p, cores: 4, clock_ghz: 4.4%s}\n"
	s, res, err := model.ResolveSoC([]byte(fmt.Sprintf(soc, "")), "m4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	big := s.Engines[0]
	if len(big.GemvEfficiencyByType) != len(m4.RepackedTypes()) {
		t.Errorf("gemv_efficiency_by_type %v, want every repacked type of %v", big.GemvEfficiencyByType, m4.RepackedTypes())
	}
	for _, typ := range m4.RepackedTypes() {
		if big.GemvEfficiencyByType[typ] != m4.RepackedGemvEfficiency {
			t.Errorf("%s: %g, want the part's %g", typ, big.GemvEfficiencyByType[typ], m4.RepackedGemvEfficiency)
		}
	}
	if src := res.Of("engines.big.gemv_efficiency_by_type.q4_0"); src.Layer != parts.FromPart || !strings.Contains(src.Note, "XNNPACK PR") {
		t.Errorf("source %+v, want the part's XNNPACK measurement", src)
	}
	s, res, err = model.ResolveSoC([]byte(fmt.Sprintf(soc, ", repacked_types: [q4_0, q8_0], gemv_efficiency_by_type: {q8_0: 0.9}")), "m4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Engines[0].GemvEfficiencyByType; len(got) != 2 || got["q4_0"] != m4.RepackedGemvEfficiency || got["q8_0"] != 0.9 {
		t.Errorf("narrowed and overridden: %v, want q4_0 the part's, q8_0 0.9", got)
	}
	if src := res.Of("engines.big.gemv_efficiency_by_type.q8_0"); src.Layer != parts.FromFile {
		t.Errorf("overridden q8_0: %+v, want the file's", src)
	}
	if s, _, err := model.ResolveSoC([]byte(strings.Replace(fmt.Sprintf(soc, ""), "apple-m4-p", "cortex-a76", 1)), "a76.yaml"); err != nil || s.Engines[0].GemvEfficiencyByType != nil {
		t.Errorf("cortex-a76 (no share given): %v, %v", err, s.Engines[0].GemvEfficiencyByType)
	}
}
