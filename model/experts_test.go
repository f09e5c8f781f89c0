package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-300)
}

func TestExpectedTouchedUniform(t *testing.T) {
	for _, tc := range []struct {
		name string
		E, k int
		n    float64
	}{
		{"qwen pp512", 256, 8, 512},
		{"qwen one token", 256, 8, 1},
		{"qwen 16 tokens", 256, 8, 16},
		{"mixtral", 8, 2, 512},
		{"mixtral 3 tokens", 8, 2, 3},
		{"gpt-oss fractional", 32, 4, 12.5},
		{"fractional below one", 128, 8, 0.3},
		{"top-k equals experts", 4, 4, 7},
		{"single expert", 1, 1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Routing{Experts: tc.E, TopK: tc.k}
			E, k := float64(tc.E), float64(tc.k)
			want := E * (1 - math.Pow(1-k/E, tc.n))
			got := r.ExpectedTouched(tc.n)
			if !near(got, want, 1e-12) {
				t.Errorf("ExpectedTouched(%g) = %.12g, want %.12g", tc.n, got, want)
			}
			if got > E || got < math.Min(k, E)*math.Min(tc.n, 1)-1e-9 {
				t.Errorf("ExpectedTouched(%g) = %g outside [min(k,n·k), E]", tc.n, got)
			}
		})
	}
	if got := (Routing{Experts: 8, TopK: 2}).ExpectedTouched(0); got != 0 {
		t.Errorf("no tokens touch %g experts", got)
	}
}

// TestGemvTiles: with a tile of one token, every (token, expert) pair is
// one walk of the expert's weights: n*k tiles.
func TestGemvTiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Routing
		n    float64
	}{
		{"uniform", Routing{Experts: 256, TopK: 8}, 512},
		{"uniform fractional", Routing{Experts: 64, TopK: 6}, 33.3},
		{"skewed", Routing{Experts: 128, TopK: 8, Skew: 0.8}, 100},
		{"capped skew", Routing{Experts: 16, TopK: 4, Skew: 2.5}, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.r.Over(tc.n, 0, float64(tc.r.Experts), 1)
			want := tc.n * float64(tc.r.TopK)
			if !near(s.Tiles, want, 1e-9) || !near(s.Assignments, want, 1e-9) {
				t.Errorf("tiles %g assignments %g, want both %g", s.Tiles, s.Assignments, want)
			}
		})
	}
}

// TestTileCoversBatch: a tile as large as the batch is walked once per
// touched expert.
func TestTileCoversBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Routing
		n    float64
		tile int
	}{
		{"equal", Routing{Experts: 256, TopK: 8}, 16, 16},
		{"larger", Routing{Experts: 256, TopK: 8}, 16, 64},
		{"small batch", Routing{Experts: 8, TopK: 2}, 3, 16},
		{"skewed", Routing{Experts: 64, TopK: 4, Skew: 1}, 32, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.r.Over(tc.n, 0, float64(tc.r.Experts), tc.tile)
			if !near(s.Tiles, s.Touched, 1e-9) {
				t.Errorf("tiles %g, touched %g", s.Tiles, s.Touched)
			}
		})
	}
}

// TestTilesMonteCarlo checks E[ceil(X/tile)] against routing simulated
// token by token: each token picks k distinct experts uniformly.
func TestTilesMonteCarlo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		E, k, n int
		tile    int
	}{
		{"qwen pp512 tile16", 256, 8, 512, 16},
		{"mixtral pp512 tile16", 8, 2, 512, 16},
		{"gpt-oss 128 tile16", 32, 4, 128, 16},
		{"small batch tile4", 64, 6, 40, 4},
		{"tile 3", 16, 2, 100, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.E*1000+tc.n)))
			const trials = 1500
			count := make([]int, tc.E)
			perm := make([]int, tc.E)
			for i := range perm {
				perm[i] = i
			}
			tiles, touched := 0.0, 0.0
			for range trials {
				clear(count)
				for range tc.n {
					// Partial Fisher-Yates: k distinct experts.
					for j := 0; j < tc.k; j++ {
						m := j + rng.IntN(tc.E-j)
						perm[j], perm[m] = perm[m], perm[j]
						count[perm[j]]++
					}
				}
				for _, c := range count {
					tiles += float64((c + tc.tile - 1) / tc.tile)
					if c > 0 {
						touched++
					}
				}
			}
			tiles /= trials
			touched /= trials
			s := Routing{Experts: tc.E, TopK: tc.k}.Over(float64(tc.n), 0, float64(tc.E), tc.tile)
			if !near(s.Tiles, tiles, 0.01) {
				t.Errorf("tiles: model %g, simulated %g", s.Tiles, tiles)
			}
			if !near(s.Touched, touched, 0.01) {
				t.Errorf("touched: model %g, simulated %g", s.Touched, touched)
			}
		})
	}
}

// TestSkew: a skewed router still gives every token k experts, but
// concentrates them, so fewer experts are touched.
func TestSkew(t *testing.T) {
	for _, tc := range []struct {
		name string
		E, k int
		skew float64
		n    float64
	}{
		{"mild", 256, 8, 0.3, 64},
		{"zipf", 256, 8, 1, 64},
		{"capped", 256, 8, 2, 64},
		{"max skew", 8, 2, 3, 16},
		{"fractional tokens", 128, 8, 1.2, 9.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Routing{Experts: tc.E, TopK: tc.k, Skew: tc.skew}
			u := Routing{Experts: tc.E, TopK: tc.k}
			s := r.Over(tc.n, 0, float64(tc.E), 16)
			if want := tc.n * float64(tc.k); !near(s.Assignments, want, 1e-9) {
				t.Errorf("assignments %g, want n*k = %g", s.Assignments, want)
			}
			if got, uni := s.Touched, u.ExpectedTouched(tc.n); !(got < uni) {
				t.Errorf("touched %g not below uniform %g", got, uni)
			}
			if got := r.ExpectedTouched(tc.n); got < float64(tc.k)-1e-9 {
				t.Errorf("touched %g below k", got)
			}
			p := r.probs()
			for j := 1; j < len(p); j++ {
				if p[j] > p[j-1] || p[j] < 0 || p[j-1] > 1 {
					t.Fatalf("probabilities not decreasing in [0,1] at %d: %v", j, p[:j+1])
				}
			}
		})
	}
}

// TestOverSplits: the stats of [0,a) and [a,E) add up to those of [0,E),
// whole or fractional a.
func TestOverSplits(t *testing.T) {
	// A range reaching below rank 0 counts only the experts that exist.
	r := Routing{Experts: 16, TopK: 2, Skew: 1}
	if got, want := r.Over(10, -3, 16, 4), r.Over(10, 0, 16, 4); got != want {
		t.Errorf("Over from -3: %+v, want %+v", got, want)
	}
	for _, r := range []Routing{
		{Experts: 256, TopK: 8},
		{Experts: 256, TopK: 8, Skew: 1},
		{Experts: 8, TopK: 2, Skew: 0.5},
	} {
		E := float64(r.Experts)
		for _, a := range []float64{0, 1, 0.5, E / 3, 37.25, E - 0.5, E} {
			for _, tile := range []int{1, 16} {
				whole := r.Over(100, 0, E, tile)
				lo, hi := r.Over(100, 0, a, tile), r.Over(100, a, E, tile)
				for _, c := range []struct {
					name            string
					whole, lo, high float64
				}{
					{"touched", whole.Touched, lo.Touched, hi.Touched},
					{"assignments", whole.Assignments, lo.Assignments, hi.Assignments},
					{"tiles", whole.Tiles, lo.Tiles, hi.Tiles},
				} {
					if !near(c.lo+c.high, c.whole, 1e-9) {
						t.Errorf("%+v a=%g tile=%d %s: %g + %g != %g", r, a, tile, c.name, c.lo, c.high, c.whole)
					}
				}
			}
		}
	}
}

func TestOverEmpty(t *testing.T) {
	r := Routing{Experts: 16, TopK: 2, Skew: 1}
	for _, tc := range []struct {
		name      string
		n, lo, hi float64
	}{
		{"no tokens", 0, 0, 16},
		{"negative tokens", -3, 0, 16},
		{"empty range", 10, 5, 5},
		{"reversed range", 10, 8, 2},
		{"beyond the experts", 10, 16, 20},
		{"below the experts", 10, -5, 0},
	} {
		if s := r.Over(tc.n, tc.lo, tc.hi, 16); s != (ExpertStats{}) {
			t.Errorf("%s: %+v", tc.name, s)
		}
	}
}
