package shuffle

import (
	"slices"
	"testing"
)

func TestRound(t *testing.T) {
	base := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	orders := map[int][]int{}
	for round := 1; round <= 3; round++ {
		a, b := slices.Clone(base), slices.Clone(base)
		Round(a, round)
		Round(b, round)
		if !slices.Equal(a, b) {
			t.Errorf("round %d: %v then %v", round, a, b)
		}
		if !slices.Equal(slices.Sorted(slices.Values(a)), base) {
			t.Errorf("round %d: %v is not a permutation", round, a)
		}
		orders[round] = a
	}
	if slices.Equal(orders[1], orders[2]) || slices.Equal(orders[2], orders[3]) || slices.Equal(orders[1], base) {
		t.Errorf("rounds share an order: %v", orders)
	}
}
