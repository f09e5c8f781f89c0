package dispatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
)

// Knobs are the plan settings of one run of the dispatcher that the seed
// experiment's environment variables set (ApplyEnv).
type Knobs struct {
	// Split is how the expert ops run: native, token or expert.
	Split string
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
// finds set and not empty: ORK_MOE_BIGLITTLE (0 native; 1 a split, token
// unless ORK_BL_SPLIT or k says otherwise), ORK_BL_SPLIT (token|expert),
// ORK_BL_LITTLE_FRAC, ORK_BL_POLL, ORK_BL_BIG_THREADS and
// ORK_BL_LITTLE_THREADS. An error names the variable and its value.
func (k *Knobs) ApplyEnv(lookup func(string) (string, bool)) error {
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	envInt := func(name string, lo, hi int, dst *int) error {
		v, ok := get(name)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%s=%q: want an integer in %d..%d", name, v, lo, hi)
		}
		*dst = n
		return nil
	}
	split, splitSet := get("ORK_BL_SPLIT")
	if splitSet {
		if split != "token" && split != "expert" {
			return fmt.Errorf("ORK_BL_SPLIT=%q: want token or expert", split)
		}
		k.Split = split
	}
	if v, ok := get("ORK_MOE_BIGLITTLE"); ok {
		switch v {
		case "0":
			k.Split = "native"
		case "1":
			if !splitSet && k.Split == "native" {
				k.Split = "token" // the seed's default split
			}
		default:
			return fmt.Errorf("ORK_MOE_BIGLITTLE=%q: want 0 (native) or 1 (split)", v)
		}
	}
	if v, ok := get("ORK_BL_LITTLE_FRAC"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("ORK_BL_LITTLE_FRAC=%q: want a number in [0,1]", v)
		}
		k.Frac = f
	}
	if err := envInt("ORK_BL_POLL", 0, 100, &k.Poll); err != nil {
		return err
	}
	if err := envInt("ORK_BL_BIG_THREADS", 1, 1<<16, &k.BigThreads); err != nil {
		return err
	}
	return envInt("ORK_BL_LITTLE_THREADS", 1, 1<<16, &k.LittleThreads)
}

// A KnobError is a knob of Knobs.Plan out of its range. Knob is its name
// in lower case, words joined by '-' ("split", "frac", "poll",
// "big-threads", "little-threads"; "cluster" for too few clusters), Value
// the value given ("" for the clusters), Reason what is wanted.
type KnobError struct {
	Knob, Value, Reason string
}

func (e *KnobError) Error() string {
	if e.Value == "" {
		return e.Knob + ": " + e.Reason
	}
	return e.Knob + " " + e.Value + ": " + e.Reason
}

// Plan is the plan the knobs make on clusters (their names and CPUs, the
// first the big engine, the second the little one; a split needs both),
// and the CPUs of each of its engines: the first Threads of its cluster's
// (all of them when 0). An error is a *KnobError.
func (k Knobs) Plan(names []string, cpus [][]int) (model.Plan, map[string][]int, error) {
	mode := model.Mode(k.Split)
	switch mode {
	case model.Native, model.TokenSplit, model.ExpertSplit:
	default:
		return model.Plan{}, nil, &KnobError{"split", strconv.Quote(k.Split), "want native, token or expert"}
	}
	if math.IsNaN(k.Frac) || k.Frac < 0 || k.Frac > 1 {
		return model.Plan{}, nil, &KnobError{"frac", strconv.FormatFloat(k.Frac, 'g', -1, 64), "want a number in [0,1]"}
	}
	if k.Poll < 0 || k.Poll > 100 {
		return model.Plan{}, nil, &KnobError{"poll", strconv.Itoa(k.Poll), "want 0..100"}
	}
	need := 1
	if mode != model.Native {
		need = 2
	}
	if len(names) < need {
		return model.Plan{}, nil, &KnobError{"cluster", "", fmt.Sprintf("a %s split needs two clusters (big and little), got %d", mode, len(names))}
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
			return model.Plan{}, nil, &KnobError{knob, strconv.Itoa(n), fmt.Sprintf("cluster %s has %d CPUs", names[i], len(c))}
		}
		threads[i] = n
		use[names[i]] = c[:n]
	}
	if mode == model.Native {
		return model.NewNative(names[0], threads[0], k.Poll), use, nil
	}
	return model.NewPlan(mode, []string{names[0], names[1]}, []int{threads[0], threads[1]}, model.SharesOf(k.Frac), k.Poll), use, nil
}
