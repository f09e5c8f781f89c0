package sim

import (
	"math"
	"testing"
)

func TestExpectedEnd(t *testing.T) {
	one := [2]float64{1, 1}
	zero := [2]float64{}
	for _, tc := range []struct {
		name   string
		starts [2]float64
		works  [2]float64
		q      float64
		picks  int
		want   float64
		tol    float64
	}{
		// E[max(X, 4-X)] / 2 for X ~ B(4, 1/2): (4+3·4+2·6+3·4+4)/16/2.
		{"four picks even", zero, one, 0.5, 4, 1.375, 1e-12},
		// One token's top-2 over two halves: both on one side half the time.
		{"two picks even", zero, one, 0.5, 2, 1.5, 1e-12},
		{"thousands of picks", zero, one, 0.5, 100000, 1.0025, 0.001},
		{"no picks", zero, one, 0.5, 0, 1, 0},
		{"all on one engine", zero, [2]float64{1, 0}, 0, 8, 1, 0},
		// A late second engine with little work: the first's own work
		// still sets the end when its share runs long.
		{"late start", [2]float64{0, 0.5}, [2]float64{1, 0.1}, 0.1, 8, 1.05, 0.1},
	} {
		got := expectedEnd(tc.starts, tc.works, tc.q, tc.picks, nil)
		if math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: %g, want %g ± %g", tc.name, got, tc.want, tc.tol)
		}
		if mean := math.Max(tc.starts[0]+tc.works[0], tc.starts[1]+tc.works[1]); got < mean {
			t.Errorf("%s: %g before the mean end %g", tc.name, got, mean)
		}
	}
	// The normal approximation takes over smoothly from the exact sum.
	a, b := expectedEnd(zero, one, 0.3, exactPicks, nil), expectedEnd(zero, one, 0.3, exactPicks+1, nil)
	if math.Abs(a-b) > 0.002*a {
		t.Errorf("exact %g at %d picks, normal %g at %d", a, exactPicks, b, exactPicks+1)
	}
	// Fewer picks, more imbalance.
	if f, m := expectedEnd(zero, one, 0.5, 16, nil), expectedEnd(zero, one, 0.5, 256, nil); !(f > m && m > 1) {
		t.Errorf("16 picks %g, 256 picks %g", f, m)
	}
}
