package runner

import (
	"fmt"
	"slices"
	"testing"
)

func TestSchedule(t *testing.T) {
	var points []Point
	for i := 0; i < 12; i++ {
		points = append(points, Point{ID: fmt.Sprintf("p%02d", i)})
	}
	ids := func(ps []Point) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.ID
		}
		return out
	}
	if got := ids(Schedule(points, 0, true)); !slices.Equal(slices.Sorted(slices.Values(got)), ids(points)) {
		t.Errorf("one shuffled round: %v", got)
	}
	if got := ids(Schedule(points, 1, false)); !slices.Equal(got, ids(points)) {
		t.Errorf("one round in order: %v", got)
	}
	inOrder := ids(Schedule(points, 3, false))
	if inOrder[0] != "p00/round=1" || inOrder[12] != "p00/round=2" || inOrder[35] != "p11/round=3" {
		t.Errorf("rounds in grid order: %v", inOrder)
	}
	shuffled := ids(Schedule(points, 3, true))
	if again := ids(Schedule(points, 3, true)); !slices.Equal(shuffled, again) {
		t.Errorf("shuffle is not deterministic:\n%v\n%v", shuffled, again)
	}
	// Every round holds every point once, in an order of its own.
	var orders [][]string
	for r := 0; r < 3; r++ {
		round := shuffled[12*r : 12*(r+1)]
		sorted := slices.Sorted(slices.Values(round))
		for i, id := range sorted {
			if want := fmt.Sprintf("p%02d/round=%d", i, r+1); id != want {
				t.Fatalf("round %d holds %v", r+1, sorted)
			}
		}
		orders = append(orders, round)
	}
	same := 0
	for r := 1; r < 3; r++ {
		for i := range orders[r] {
			if orders[r][i][:3] == orders[0][i][:3] {
				same++
			}
		}
	}
	if same > 8 || slices.Equal(orders[0], inOrder[:12]) {
		t.Errorf("rounds barely shuffled (%d places alike): %v", same, orders)
	}
	// The points passed in are not changed.
	if points[0].ID != "p00" {
		t.Errorf("input changed: %v", points[0].ID)
	}
}
