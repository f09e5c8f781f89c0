package quant

import (
	"math"
	"testing"
)

// TestFourRowsMatchOneRow: for every implementation, the four-row dots (of
// one or two tokens) give, bit for bit, what one-row dots of the same rows
// give, over
// the dot cases' patterns, scales and lengths (each case's four rows are
// its x and three rotations of it, so the rows differ).
func TestFourRowsMatchOneRow(t *testing.T) {
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			prev := active.Load()
			active.Store(k)
			defer active.Store(prev)
			for _, c := range dotCases() {
				n := len(c.y)
				x4 := make([]BlockQ4, 0, 4*n)
				x8 := make([]BlockQ8, 0, 4*n)
				for r := range 4 {
					for i := range n {
						x4 = append(x4, c.x4[(i+r)%n])
						x8 = append(x8, c.x8[(i+3*r)%n])
					}
				}
				var got4, got8 [4]float32
				DotQ4Q8x4(x4, n, c.y, &got4)
				DotQ8Q8x4(x8, n, c.y, &got8)
				// Two tokens: c.y and c.y reversed block by block.
				y1 := make([]BlockQ8, n)
				for i := range n {
					y1[i] = c.y[n-1-i]
				}
				var two4, two8 [8]float32
				DotQ4Q8x4x2(x4, n, c.y, y1, (*[4]float32)(two4[0:4]), (*[4]float32)(two4[4:8]))
				DotQ8Q8x4x2(x8, n, c.y, y1, (*[4]float32)(two8[0:4]), (*[4]float32)(two8[4:8]))
				for r := range 4 {
					for k, y := range [][]BlockQ8{c.y, y1} {
						w4 := DotQ4Q8(x4[r*n:(r+1)*n], y)
						w8 := DotQ8Q8(x8[r*n:(r+1)*n], y)
						if math.Float32bits(two4[4*k+r]) != math.Float32bits(w4) || math.Float32bits(two8[4*k+r]) != math.Float32bits(w8) {
							t.Fatalf("%s row %d token %d: two-token %g %g, one-row %g %g", c.name, r, k, two4[4*k+r], two8[4*k+r], w4, w8)
						}
					}
				}
				for r := range 4 {
					w4 := DotQ4Q8(x4[r*n:(r+1)*n], c.y)
					w8 := DotQ8Q8(x8[r*n:(r+1)*n], c.y)
					if math.Float32bits(got4[r]) != math.Float32bits(w4) {
						t.Fatalf("%s row %d: q4 four-row %g, one-row %g", c.name, r, got4[r], w4)
					}
					if math.Float32bits(got8[r]) != math.Float32bits(w8) {
						t.Fatalf("%s row %d: q8 four-row %g, one-row %g", c.name, r, got8[r], w8)
					}
				}
			}
		})
	}
}
