package model

import "math"

// Routing gives the expected routing statistics of one MoE layer: which
// experts a batch of tokens touches and how many token tiles each expert's
// weights are walked for.
type Routing struct {
	Experts int
	TopK    int
	// Skew is the Zipf exponent of expert popularity (0: uniform).
	Skew float64
}

// probs returns the probability that one token routes to the expert of
// each popularity rank (0 = most popular). Zipf weights are normalised so
// the k choices per token add up to k; an expert cannot be chosen twice by
// one token, so a probability above 1 is capped and the excess is spread
// over the less popular experts in proportion to their weights.
func (r Routing) probs() []float64 {
	E, k := r.Experts, float64(r.TopK)
	p := make([]float64, E)
	w := make([]float64, E)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -r.Skew)
	}
	// The capped experts are the most popular ones, a prefix.
	for c := 0; c < E; c++ {
		norm := 0.0
		for _, v := range w[c:] {
			norm += v
		}
		rest := k - float64(c)
		if rest*w[c]/norm <= 1 {
			for j := c; j < E; j++ {
				p[j] = rest * w[j] / norm
			}
			break
		}
		p[c] = 1
	}
	return p
}

// ExpectedTouched is the expected number of distinct experts that n tokens
// route to: E*(1-(1-k/E)^n) under uniform routing.
func (r Routing) ExpectedTouched(n float64) float64 {
	s := r.Over(n, 0, float64(r.Experts), 1)
	return s.Touched
}

// ExpertStats are expectations over a range of experts for n tokens.
type ExpertStats struct {
	// Touched is the expected number of experts in the range that receive
	// at least one token.
	Touched float64
	// Assignments is the expected number of (token, expert) pairs.
	Assignments float64
	// Tiles is the expected number of token tiles summed over the range's
	// experts: sum of E[ceil(X_j/tile)], X_j the tokens of expert j.
	Tiles float64
}

// Over returns the expectations for n tokens over experts of popularity
// rank [lo, hi) (fractional bounds weight the boundary expert partly),
// with tile tokens per weight walk.
func (r Routing) Over(n, lo, hi float64, tile int) ExpertStats {
	var s ExpertStats
	if n <= 0 || hi <= lo {
		return s
	}
	add := func(weight, q float64) {
		t, c := binomialCeil(n, q, tile)
		s.Touched += weight * t
		s.Assignments += weight * n * q
		s.Tiles += weight * c
	}
	if r.Skew == 0 {
		add(hi-lo, float64(r.TopK)/float64(r.Experts))
		return s
	}
	p := r.probs()
	for j := max(0, int(math.Floor(lo))); float64(j) < hi && j < r.Experts; j++ {
		w := math.Min(hi, float64(j+1)) - math.Max(lo, float64(j))
		if w > 0 {
			add(w, p[j])
		}
	}
	return s
}

// binomialCeil returns P(X>=1) and E[ceil(X/tile)] for X ~ Binomial(n, q).
// A fractional n (an expected token share) interpolates the tile count
// linearly between the neighbouring integers; P(X>=1) is 1-(1-q)^n exactly.
func binomialCeil(n, q float64, tile int) (touched, tiles float64) {
	if q <= 0 {
		return 0, 0
	}
	touched = 1 - math.Pow(1-q, n)
	if q >= 1 {
		return 1, math.Ceil(n / float64(tile))
	}
	if tile == 1 {
		return touched, n * q
	}
	f := math.Floor(n)
	tiles = ceilMean(f, q, tile)
	if w := n - f; w > 0 {
		tiles = (1-w)*tiles + w*ceilMean(f+1, q, tile)
	}
	return touched, tiles
}

// ceilMean is E[ceil(X/tile)] for X ~ Binomial(n, q), n an integer, summed
// in log space over the mean +- 12 sd (exact to double precision there).
func ceilMean(n, q float64, tile int) float64 {
	if n < 1 {
		return 0
	}
	mean, sd := n*q, math.Sqrt(n*q*(1-q))
	lo := math.Max(1, math.Floor(mean-12*sd-8))
	hi := math.Min(n, math.Ceil(mean+12*sd+8))
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	base, logq, log1q := lg(n+1), math.Log(q), math.Log1p(-q)
	sum := 0.0
	for x := lo; x <= hi; x++ {
		lp := base - lg(x+1) - lg(n-x+1) + x*logq + (n-x)*log1q
		sum += math.Exp(lp) * math.Ceil(x/float64(tile))
	}
	return sum
}
