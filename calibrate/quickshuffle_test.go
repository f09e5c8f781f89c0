package calibrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/topology"
)

// A quick calibration shuffles its rounds however many it is asked for
// (--quick --rounds 3), as it does at its default QuickRounds; a full one
// only with Shuffle.
func TestQuickRoundsShuffled(t *testing.T) {
	order := func(quick bool) [][]string {
		s := &Settings{Engines: NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{1}}, {Name: "little", CPUs: []int{0}}}),
			Workload: memWorkload(), NoMicro: true, Quick: quick, Rounds: 3, Repeats: 1, FixedRepeats: true}
		steps, err := DispatcherSteps(s, "main")
		if err != nil {
			t.Fatal(err)
		}
		rounds := make([][]string, 3)
		for _, st := range steps {
			for r := 1; r <= 3; r++ {
				if id, ok := strings.CutSuffix(st.ID, "/round="+string(rune('0'+r))); ok {
					rounds[r-1] = append(rounds[r-1], id)
				}
			}
		}
		if len(rounds[0]) == 0 || len(rounds[0]) != len(rounds[2]) {
			t.Fatalf("quick %v: rounds of %d and %d points", quick, len(rounds[0]), len(rounds[2]))
		}
		return rounds
	}
	q := order(true)
	if slices.Equal(q[0], q[1]) && slices.Equal(q[1], q[2]) {
		t.Errorf("--quick --rounds 3: every round in the same order:\n%v", q[0])
	}
	f := order(false)
	if !slices.Equal(f[0], f[1]) || !slices.Equal(f[1], f[2]) {
		t.Errorf("a full calibration's rounds shuffled without Shuffle:\n%v\n%v", f[0], f[1])
	}
}
