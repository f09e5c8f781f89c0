package sim

import "math"

// exactPicks is the largest number of routed picks (tokens × top-k) whose
// split between two engines is summed exactly; beyond it a normal
// approximation of the same binomial is integrated.
const exactPicks = 512

// gaussNodes is the number of points of that integration (±4σ).
const gaussNodes = 33

// binomialMode is the mode of B(picks, q) and its probability.
func binomialMode(picks int, q float64) (int, float64) {
	n := float64(picks)
	m := min(picks, int(math.Floor((n+1)*q)))
	lgn, _ := math.Lgamma(n + 1)
	lm, _ := math.Lgamma(float64(m) + 1)
	lnm, _ := math.Lgamma(n - float64(m) + 1)
	return m, math.Exp(lgn - lm - lnm + float64(m)*math.Log(q) + (n-float64(m))*math.Log1p(-q))
}

// modeKey names a binomial for the runner's memo of binomialMode.
type modeKey struct {
	picks int
	q     float64
}

// modeVal is binomialMode's result.
type modeVal struct {
	m  int
	pm float64
}

// expectedEnd is the expected end of a two-engine expert split whose
// partitions start at starts and take works when each gets its expected
// share of the routed picks: the op waits for the slower engine, and which
// engine that is varies with the routing. picks tokens × top-k picks each
// land on engine 1 with probability q (independently: a binomial; its
// experts' share of the routing mass) and on engine 0 otherwise, and an
// engine's work scales with the picks it gets. With few picks (a generated
// token's k, a short ubatch) the slower side is slower than its mean share
// by a fair margin: 1.375x for 4 picks split evenly; with thousands the
// expected end is the larger of the mean ends. memo remembers
// binomialMode's results (nil: none).
func expectedEnd(starts, works [2]float64, q float64, picks int, memo map[modeKey]modeVal) float64 {
	meanEnd := math.Max(starts[0]+works[0], starts[1]+works[1])
	if picks <= 0 || q <= 0 || q >= 1 {
		return meanEnd
	}
	n := float64(picks)
	end := func(x float64) float64 { // x picks on engine 1
		return math.Max(starts[0]+works[0]*(n-x)/(n*(1-q)), starts[1]+works[1]*x/(n*q))
	}
	if picks <= exactPicks {
		// The binomial pmf from its mode outwards by the ratio of
		// neighbouring terms: three log-gamma evaluations in all (remembered), and no
		// underflow where the terms still count.
		k := modeKey{picks, q}
		mv, ok := memo[k]
		if !ok {
			mv.m, mv.pm = binomialMode(picks, q)
			if memo != nil {
				memo[k] = mv
			}
		}
		m, pm := mv.m, mv.pm
		odds := q / (1 - q)
		sum := pm * end(float64(m))
		for x, p := m, pm; x < picks && p > 1e-17*pm; x++ { // up: p(x+1) = p(x)·(n-x)/(x+1)·q/(1-q)
			p *= (n - float64(x)) / float64(x+1) * odds
			sum += p * end(float64(x+1))
		}
		for x, p := m, pm; x > 0 && p > 1e-17*pm; x-- { // down
			p *= float64(x) / (n - float64(x) + 1) / odds
			sum += p * end(float64(x-1))
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
