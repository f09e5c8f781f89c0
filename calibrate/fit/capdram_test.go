package fit

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestCapsAtDRAM: a cap fitted within its σ of sustained DRAM, or above
// it, is not called identified, and takes its prior's σ (in the profile's
// uncertainty too) with a note; a cap clearly below DRAM, or one of an
// engine with DRAM of its own, keeps what the fit said.
func TestCapsAtDRAM(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name        string
		cap, sigma  float64
		ownDRAM     bool
		want        bool // unmarked
		wantIdentOf Identification
	}{
		{"above DRAM", 22.7, 0.3, false, true, Unpinned},
		{"a hair below, within its σ", 20.95, 0.39, false, true, Unpinned},
		{"below by more than its σ", 19.0, 0.39, false, false, Identified},
		{"an accelerator with its own DRAM", 22.7, 0.3, true, false, Identified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &model.SoC{DRAM: model.DRAM{SustainedGBs: 21}, Uncertainty: map[string]float64{},
				Engines: []model.Engine{{Name: "big", Kind: model.KindCPU}}}
			if tc.ownDRAM {
				s.Engines[0].Kind, s.Engines[0].SharesDRAM = model.KindNPU, &no
			}
			ps := []ParamFit{{Path: "engines.big.bandwidth_max_gb_s", Prior: 20, PriorSigma: 0.5, Value: tc.cap, Sigma: tc.sigma,
				Identifiable: true, Identification: Identified}}
			notes := capsAtDRAM(s, ps)
			p := ps[0]
			if got := !p.Identifiable; got != tc.want || p.Identification != tc.wantIdentOf {
				t.Fatalf("unmarked %v (%s), want %v (%s)", got, p.Identification, tc.want, tc.wantIdentOf)
			}
			if !tc.want {
				if len(notes) != 0 || p.Sigma != tc.sigma {
					t.Errorf("changed a cap it should keep: σ %v, notes %q", p.Sigma, notes)
				}
				return
			}
			if p.Sigma != 0.5 || s.Uncertainty[p.Path] != 0.5 || p.Value != tc.cap {
				t.Errorf("value %v σ %v (profile %v): want the value kept and the prior's σ 0.5", p.Value, p.Sigma, s.Uncertainty[p.Path])
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "engines.big.bandwidth_max_gb_s") || !strings.Contains(notes[0], "from below only") {
				t.Errorf("notes %q", notes)
			}
		})
	}
}
