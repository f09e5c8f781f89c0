package predict

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
)

// ParseShares reads the shares of the n-1 engines after the first
// ("0.1,0.3") and gives the first the rest: [0.6 0.1 0.3], as Request.Fracs
// holds them.
func ParseShares(spec string, n int) ([]float64, error) {
	parts := strings.Split(spec, ",")
	if len(parts) != n-1 {
		return nil, fmt.Errorf("%d values for %d engines after the first: want %s (one share per engine after the first, each in [0,1]), or auto", len(parts), n-1, exampleList("0.1", n-1))
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

// ModeNames are the names of --split: each split mode (model.SplitModes)
// and AllModes.
func ModeNames() []string {
	var out []string
	for _, m := range model.SplitModes() {
		out = append(out, string(m))
	}
	return append(out, AllModes)
}

// AllModes is --split's name for every split mode the engines can take.
const AllModes = "both"

// ParseModes reads a split mode as the command line names it: one of
// model.SplitModes, or AllModes (nil: every mode the engines can take).
func ParseModes(s string) ([]model.Mode, error) {
	if m := model.Mode(s); m.IsSplit() {
		return []model.Mode{m}, nil
	}
	if s == AllModes {
		return nil, nil
	}
	return nil, fmt.Errorf("%q is not %s", s, model.ModeList(append(model.SplitModes(), AllModes)))
}

// ParseEngines reads a comma-separated list of engine names, main first
// ("big,little,npu"); "" is nil (the SoC's first two).
func ParseEngines(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, n := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(n))
	}
	return out
}

// ParseBusy reads how many cores of each engine run something else at
// full load ("big=1,little=2"): what a thread sweep's pools share the
// cores with.
func ParseBusy(s string) (map[string]int, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]int{}
	for _, p := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || name == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("%q: want engine=cores, a whole number of busy cores (big=1)", p)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q: engine %s given twice", p, name)
		}
		out[name] = n
	}
	return out, nil
}

// ParseThreads reads n engines' thread counts ("4,8").
func ParseThreads(s string, n int) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%d values for %d engines: want %s (one thread count per engine, main first)", len(parts), n, exampleList("4", n))
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not a whole number of threads", p)
		}
		out[i] = v
	}
	return out, nil
}

// exampleList is the form a list of n values takes, e.g. "0.1,0.1" for
// two shares, shown in an error about the list's length.
func exampleList(v string, n int) string {
	if n < 1 {
		return "no value"
	}
	return strings.TrimSuffix(strings.Repeat(v+",", n), ",")
}

// ParseUnpinned parses the OS policy that places a thread sweep's
// unpinned rows (-t N without a mask): "" is linux; strict is refused,
// since a mask with --cpu-strict 1 is what the sweep's pinned rows give.
func ParseUnpinned(s string) (model.Placement, error) {
	if s == "" {
		return "", nil
	}
	pl, err := model.ParsePlacement(s)
	if err != nil || pl == model.PlaceStrict {
		return "", fmt.Errorf("%q: want linux, android, macos or windows (a mask with --cpu-strict 1 is what the sweep's pinned rows give)", s)
	}
	return pl, nil
}
