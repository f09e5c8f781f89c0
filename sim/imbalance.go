package sim

import "math"

// exactPicks is the largest number of routed picks (tokens × top-k) whose
// split between two engines is summed exactly; beyond it a normal
// approximation of the same binomial is integrated.
const exactPicks = 512

// gaussNodes is the number of points of that integration (±4σ).
const gaussNodes = 33

// expectedEnd is the expected end of a two-engine expert split whose
// partitions start at starts and take works when each gets its expected
// share of the routed picks: the op waits for the slower engine, and which
// engine that is varies with the routing. picks tokens × top-k picks each
// land on engine 1 with probability q (independently: a binomial; its
// experts' share of the routing mass) and on engine 0 otherwise, and an
// engine's work scales with the picks it gets. With few picks (a generated
// token's k, a short ubatch) the slower side is slower than its mean share
// by a fair margin: 1.375x for 4 picks split evenly; with thousands the
// expected end is the larger of the mean ends.
func expectedEnd(starts, works [2]float64, q float64, picks int) float64 {
	meanEnd := math.Max(starts[0]+works[0], starts[1]+works[1])
	if picks <= 0 || q <= 0 || q >= 1 {
		return meanEnd
	}
	n := float64(picks)
	end := func(x float64) float64 { // x picks on engine 1
		return math.Max(starts[0]+works[0]*(n-x)/(n*(1-q)), starts[1]+works[1]*x/(n*q))
	}
	if picks <= exactPicks {
		// Binomial pmf by its recurrence from the mode outwards would be
		// stabler; from x = 0 in logs is exact enough at these sizes.
		sum, lq, lp := 0.0, math.Log(q), math.Log1p(-q)
		lgn, _ := math.Lgamma(n + 1)
		for x := 0; x <= picks; x++ {
			fx := float64(x)
			lx, _ := math.Lgamma(fx + 1)
			lnx, _ := math.Lgamma(n - fx + 1)
			sum += math.Exp(lgn-lx-lnx+fx*lq+(n-fx)*lp) * end(fx)
		}
		return math.Max(sum, meanEnd)
	}
	mu, sd := n*q, math.Sqrt(n*q*(1-q))
	sum, wsum := 0.0, 0.0
	for i := range gaussNodes {
		z := -4 + 8*float64(i)/float64(gaussNodes-1)
		w := math.Exp(-z * z / 2)
		x := math.Min(math.Max(mu+z*sd, 0), n)
		sum += w * end(x)
		wsum += w
	}
	return math.Max(sum/wsum, meanEnd)
}
