package predict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseShares reads the shares of the n-1 engines after the first
// ("0.1,0.3") and gives the first the rest: [0.6 0.1 0.3], as Request.Fracs
// holds them.
func ParseShares(spec string, n int) ([]float64, error) {
	parts := strings.Split(spec, ",")
	if len(parts) != n-1 {
		return nil, fmt.Errorf("%d values for %d engines after the first (or auto)", len(parts), n-1)
	}
	fr := make([]float64, n)
	sum := 0.0
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("%q is not auto or a number in [0,1]", p)
		}
		fr[i+1] = v
		sum += v
	}
	if sum > 1+1e-9 {
		return nil, fmt.Errorf("shares sum to %g; they must not exceed 1 (the first engine gets the rest)", sum)
	}
	fr[0] = math.Max(0, 1-sum)
	return fr, nil
}
