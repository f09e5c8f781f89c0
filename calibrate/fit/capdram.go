package fit

import (
	"fmt"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
)

// capsAtDRAM unmarks the bandwidth caps the fit put within their σ of
// sustained DRAM, or above it: an engine alone pulls at most the lower of
// its cap and sustained DRAM (and less with others streaming), so the
// runs tell such a cap from sustained DRAM on one side only, and bound it
// from below. The finite-difference Jacobian, taken on the kink where the
// two meet, sees the cap move a run (on the side where it binds) and
// called such a cap identified, narrower than its prior: 21.0 ± 0.39 GB/s,
// a hair below the fitted sustained DRAM, for a truth of 22.7 above a
// sustained DRAM of 20.2 (TestGridIdentifiesDRAMOnABoard).
// Each such cap keeps its value, takes at least its prior's σ, in s's
// uncertainty too, and is identified again from its numbers
// (IdentificationOf); the notes say which.
func capsAtDRAM(s *model.SoC, params []ParamFit) []string {
	dram := s.DRAM.SustainedGBs
	if !(dram > 0) {
		return nil
	}
	var notes []string
	for i := range params {
		p := &params[i]
		if !p.Identifiable || !hasSuffix(p.Path, ".bandwidth_max_gb_s") || p.Value+p.Sigma < dram {
			continue
		}
		e, _, err := s.Engine(strings.TrimSuffix(strings.TrimPrefix(p.Path, "engines."), ".bandwidth_max_gb_s"))
		if err != nil || !e.UsesSharedDRAM() {
			continue
		}
		p.Identifiable, p.CoupledWith = false, nil
		p.Sigma = math.Max(p.Sigma, p.PriorSigma)
		s.Uncertainty[p.Path] = p.Sigma
		p.Identification = IdentificationOf(*p)
		notes = append(notes, fmt.Sprintf("%s: fitted at %.4g GB/s, within its σ of sustained DRAM's %.4g or above it, so the runs cannot tell it from DRAM: they bound it from below only (σ at least its prior's)",
			p.Path, p.Value, dram))
	}
	return notes
}
