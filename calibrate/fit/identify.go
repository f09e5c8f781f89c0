package fit

import "math"

// Identification is what a fit learnt about one parameter, from the
// numbers: whether the runs determine it (the Jacobian of the residuals,
// without the priors, at the fitted values), and, where they do not,
// whether the fit left it at its prior.
type Identification string

const (
	// Identified: the runs determine the parameter.
	Identified Identification = "identified"
	// PriorOnly: the runs do not determine the parameter and the fit left
	// it where the prior put it (within PriorTolerance), with about the
	// prior's σ when other parameters are coupled to it: its value is the
	// prior's.
	PriorOnly Identification = "prior"
	// Coupled: the runs determine the parameter only together with
	// others (ParamFit.CoupledWith): trading it against them along a
	// direction leaves every prediction unchanged, and the priors settle
	// where on that direction the fit sits. It may have moved from its
	// prior, with them.
	Coupled Identification = "coupled"
	// Unpinned: the fit moved the parameter from its prior, but at the
	// fitted value no run depends on it (to first order) and no other
	// parameter moves with it: the runs pushed it there, to a bound or
	// past where it limits any of them, and do not pin it. Weakly
	// identified: the runs bound it on one side at most.
	Unpinned Identification = "unpinned"
	// Measured: the runs do not reach the parameter, and its value is a
	// microbenchmark that measures the parameter itself, which the fit
	// kept, with that measurement's σ (MeasuredDirectly): sustained DRAM
	// from every CPU streaming at once, where the engines' own caps sum
	// below it and the dispatcher's engines keep their speed at once.
	// The runs bound it from below only.
	Measured Identification = "measured"
	// RidesOnPrior: the runs cannot tell the rate's work from another
	// class's, so it kept the prior's ratio to that class's rate
	// (ParamFit.RidesOn), with the prior's width.
	RidesOnPrior Identification = "prior ratio"
)

// PriorTolerance is how far, relative to the larger of the prior's value
// and its σ, a fitted value may be from the prior and still count as the
// prior's: a thousandth, below what the fit's table prints.
const PriorTolerance = 1e-3

// coupledShare is how large, relative to the largest, a parameter's move
// along a direction of the null space must be, in units of its prior σ,
// for it to take part in that direction: smaller moves are the noise of
// the finite-difference Jacobian.
const coupledShare = 1e-3

// unchangedSigma is how close to the prior's σ, as a ratio, the fitted σ
// of a parameter that did not move must be for PriorOnly when other
// parameters are coupled to it.
const unchangedSigma = 0.9

// Moved reports whether the fit moved p from its prior by more than
// PriorTolerance.
func (p ParamFit) Moved() bool {
	return math.Abs(p.Value-p.Prior) > PriorTolerance*math.Max(math.Abs(p.Prior), p.PriorSigma)
}

// IdentificationOf decides, from p's numbers, what the fit learnt about
// it: Identified when the runs determine it (p.Identifiable); else
// PriorOnly when it did not move (Moved) and either nothing is coupled
// to it or its σ is still about the prior's; else Coupled when other
// parameters are (p.CoupledWith), or Unpinned.
func IdentificationOf(p ParamFit) Identification {
	switch {
	case p.Identifiable:
		return Identified
	case !p.Moved() && (len(p.CoupledWith) == 0 || p.Sigma >= unchangedSigma*p.PriorSigma):
		return PriorOnly
	case len(p.CoupledWith) > 0:
		return Coupled
	}
	return Unpinned
}

// coupledWith returns, for parameter j, the other parameters that move
// with it along a direction of the null space (in x space, as lm gives
// it): in a direction both take part in, each moving, in its prior σ, at
// least coupledShare of the most any parameter moves along it. sigma is
// each parameter's prior σ, paths names them.
func coupledWith(j int, null [][]float64, sigma []float64, paths []string) []string {
	with := make([]bool, len(paths))
	for _, dir := range null {
		e := make([]float64, len(dir))
		big := 0.0
		for i, d := range dir {
			s := sigma[i]
			if !(s > 0) || math.IsInf(s, 0) {
				s = 1
			}
			e[i] = math.Abs(d) / s
			big = math.Max(big, e[i])
		}
		if big == 0 || e[j] < coupledShare*big {
			continue
		}
		for i := range e {
			if i != j && e[i] >= coupledShare*big {
				with[i] = true
			}
		}
	}
	var out []string
	for i, w := range with {
		if w {
			out = append(out, paths[i])
		}
	}
	return out
}
