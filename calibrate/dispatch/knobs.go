package dispatch

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	gridrunner "github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/model"
)

// Knobs are the plan settings of one run of the dispatcher that the seed
// experiment's environment variables set (ApplyEnv).
type Knobs struct {
	// Split is how the expert ops run: model.Native, TokenSplit or
	// ExpertSplit.
	Split model.Mode
	// Frac is the little engine's share of the tokens (token) or experts
	// (expert), in [0,1].
	Frac float64
	// Poll is the pools' spin level, 0..100.
	Poll int
	// BigThreads and LittleThreads are the engines' threads; 0 means all
	// of the engine's CPUs.
	BigThreads, LittleThreads int
}

// ApplyEnv overrides k with the seed's knobs that lookup (os.LookupEnv)
// finds set and not empty, read as blsim reads a run's knobs from a
// llama-bench grid (runner.DefaultMapping's vocabulary, runner.Mapping.Read):
// ORK_MOE_BIGLITTLE (1, true, on or yes a split, token unless
// ORK_BL_SPLIT or k says otherwise; 0, false, off or no native),
// ORK_BL_SPLIT (token|expert), ORK_BL_LITTLE_FRAC, ORK_BL_POLL,
// ORK_BL_BIG_THREADS and ORK_BL_LITTLE_THREADS. Where the fork has a
// default for a knob left unset (4 little threads), k's value is the
// default instead: the dispatcher's defaults are its flags. As in the
// fork, the split knob chooses the mode of a split that is on, and turns
// none on. An error names the variable and its value.
func (k *Knobs) ApplyEnv(lookup func(string) (string, bool)) error {
	m := gridrunner.DefaultMapping()
	m.Defaults = nil
	env := map[string]string{}
	for _, name := range m.EnvNames() {
		if v, ok := lookup(name); ok && strings.TrimSpace(v) != "" {
			env[name] = v
		}
	}
	kp, err := m.Read(env)
	if err != nil {
		return err
	}
	on := k.Split != model.Native
	if kp.On != nil {
		on = *kp.On
	}
	switch {
	case !on:
		k.Split = model.Native
	case kp.Mode != nil:
		k.Split = *kp.Mode
	case k.Split == model.Native:
		k.Split = model.TokenSplit // the seed's default split
	}
	if kp.Frac != nil {
		k.Frac = *kp.Frac
	}
	for _, x := range []struct {
		v   *int
		dst *int
	}{{kp.Poll, &k.Poll}, {kp.BigThreads, &k.BigThreads}, {kp.LittleThreads, &k.LittleThreads}} {
		if x.v != nil {
			*x.dst = *x.v
		}
	}
	return nil
}

// Plan is the plan the knobs make on clusters (their names and CPUs, the
// first the big engine, the second the little one; a split needs both),
// and the CPUs of each of its engines: the first Threads of its cluster's
// (all of them when 0). An error is a *model.SettingError whose Setting
// is the knob's name in lower case, words joined by '-' ("split", "frac",
// "poll", "big-threads", "little-threads"; "cluster" for too few
// clusters).
func (k Knobs) Plan(names []string, cpus [][]int) (model.Plan, map[string][]int, error) {
	mode := k.Split
	switch mode {
	case model.Native, model.TokenSplit, model.ExpertSplit:
	default:
		return model.Plan{}, nil, &model.SettingError{Setting: "split", Value: strconv.Quote(string(k.Split)), Err: errors.New("want native, token or expert")}
	}
	if math.IsNaN(k.Frac) || k.Frac < 0 || k.Frac > 1 {
		return model.Plan{}, nil, &model.SettingError{Setting: "frac", Value: strconv.FormatFloat(k.Frac, 'g', -1, 64), Err: errors.New("want a number in [0,1]")}
	}
	if k.Poll < 0 || k.Poll > 100 {
		return model.Plan{}, nil, &model.SettingError{Setting: "poll", Value: strconv.Itoa(k.Poll), Err: errors.New("want 0..100")}
	}
	need := 1
	if mode != model.Native {
		need = 2
	}
	if len(names) < need {
		return model.Plan{}, nil, &model.SettingError{Setting: "cluster", Err: fmt.Errorf("a %s split needs two clusters (big and little), got %d", mode, len(names))}
	}
	threads := make([]int, need)
	use := map[string][]int{}
	for i := range need {
		n, knob := k.BigThreads, "big-threads"
		if i == 1 {
			n, knob = k.LittleThreads, "little-threads"
		}
		c := cpus[i]
		if n == 0 {
			n = len(c)
		}
		if n < 1 || n > len(c) {
			return model.Plan{}, nil, &model.SettingError{Setting: knob, Value: strconv.Itoa(n), Err: fmt.Errorf("cluster %s has %d CPUs", names[i], len(c))}
		}
		threads[i] = n
		use[names[i]] = c[:n]
	}
	if mode == model.Native {
		return model.NewNative(names[0], threads[0], k.Poll), use, nil
	}
	return model.NewPlan(mode, []string{names[0], names[1]}, []int{threads[0], threads[1]}, model.SharesOf(k.Frac), k.Poll), use, nil
}
