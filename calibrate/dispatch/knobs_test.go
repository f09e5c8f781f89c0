package dispatch

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// The seed's ORK_* variables override the knobs they name, read as a
// llama-bench grid's records are (runner.Mapping.Read): the same words for
// on, off and the modes, and the split knob chooses the mode of a split
// that is on without turning one on; empty ones do nothing; bad values are
// one-line errors naming the variable.
func TestKnobsApplyEnv(t *testing.T) {
	base := Knobs{Split: "native", Frac: 0.12, Poll: 50}
	for _, tc := range []struct {
		env   map[string]string
		start model.Mode
		want  Knobs
	}{
		{map[string]string{"ORK_MOE_BIGLITTLE": "0"}, "token", Knobs{Split: "native", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "1"}, "native", Knobs{Split: "token", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "1"}, "expert", Knobs{Split: "expert", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_BL_SPLIT": "expert", "ORK_BL_LITTLE_FRAC": "0.4"}, "token", Knobs{Split: "expert", Frac: 0.4, Poll: 50}},
		{map[string]string{"ORK_BL_SPLIT": "expert", "ORK_BL_LITTLE_FRAC": "0.4"}, "native", Knobs{Split: "native", Frac: 0.4, Poll: 50}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "Yes", "ORK_BL_SPLIT": "Experts"}, "native", Knobs{Split: "expert", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "off"}, "expert", Knobs{Split: "native", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "0", "ORK_BL_SPLIT": "expert"}, "token", Knobs{Split: "native", Frac: 0.12, Poll: 50}},
		{map[string]string{"ORK_BL_POLL": "0", "ORK_BL_BIG_THREADS": "3", "ORK_BL_LITTLE_THREADS": " 2 "}, "token", Knobs{Split: "token", Frac: 0.12, BigThreads: 3, LittleThreads: 2}},
		{map[string]string{"ORK_BL_POLL": ""}, "native", base},
	} {
		k := base
		k.Split = tc.start
		if err := k.ApplyEnv(func(n string) (string, bool) { v, ok := tc.env[n]; return v, ok }); err != nil || k != tc.want {
			t.Errorf("%v on %s: %+v, %v; want %+v", tc.env, tc.start, k, err, tc.want)
		}
	}
	for name, v := range map[string]string{"ORK_BL_POLL": "abc", "ORK_BL_LITTLE_FRAC": "1.5", "ORK_BL_SPLIT": "layer",
		"ORK_MOE_BIGLITTLE": "2", "ORK_BL_LITTLE_THREADS": "0", "ORK_BL_BIG_THREADS": "NaN"} {
		k := base
		err := k.ApplyEnv(func(n string) (string, bool) { return v, n == name })
		if err == nil || !strings.HasPrefix(err.Error(), name+"=") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: %v", name, v, err)
		}
	}
}

// The knobs make a native plan on the first cluster or a split on the
// first two, on each engine's first CPUs; a knob out of range is a
// *model.SettingError.
func TestKnobsPlan(t *testing.T) {
	names, cpus := []string{"big", "little"}, [][]int{{4, 5, 6, 7}, {0, 1, 2, 3}}
	p, use, err := Knobs{Split: "token", Frac: 0.3, Poll: 50, LittleThreads: 2}.Plan(names, cpus)
	if err != nil || p.Mode != model.TokenSplit || p.Fracs[1] != 0.3 || !slices.Equal(p.Threads, []int{4, 2}) ||
		!slices.Equal(use["big"], []int{4, 5, 6, 7}) || !slices.Equal(use["little"], []int{0, 1}) {
		t.Errorf("token split: %v %v %v", p, use, err)
	}
	p, use, err = Knobs{Split: "native", Poll: 0, BigThreads: 1}.Plan(names[:1], cpus[:1])
	if err != nil || p.Mode != model.Native || !slices.Equal(p.Threads, []int{1}) || len(use) != 1 || !slices.Equal(use["big"], []int{4}) {
		t.Errorf("native: %v %v %v", p, use, err)
	}
	for _, tc := range []struct {
		k     Knobs
		names []string
		want  string
	}{
		{Knobs{Split: "layer"}, names, `split "layer": want native, token or expert`},
		{Knobs{Split: "token", Frac: 2}, names, "frac 2: want a number in [0,1]"},
		{Knobs{Split: "token", Frac: math.NaN()}, names, "frac NaN: want a number in [0,1]"},
		{Knobs{Split: "native", Poll: -1}, names, "poll -1: want 0..100"},
		{Knobs{Split: "expert"}, names[:1], "cluster: a expert split needs two clusters (big and little), got 1"},
		{Knobs{Split: "native", BigThreads: 5}, names, "big-threads 5: cluster big has 4 CPUs"},
		{Knobs{Split: "token", LittleThreads: -1}, names, "little-threads -1: cluster little has 4 CPUs"},
	} {
		_, _, err := tc.k.Plan(tc.names, cpus)
		var ke *model.SettingError
		if !errors.As(err, &ke) || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.k, err, tc.want)
		}
	}
}
