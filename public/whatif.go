package public

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
)

// Set is one what-if change made to every row's SoC before it is
// simulated: a parameter path as model.SoC.Get addresses it
// (engines.big.gemv_overlap, dram.sustained_gb_s,
// engines.big.kernel_ops_per_cycle.q4_0), where the engine may be "*",
// every CPU engine of the SoC, and the value it takes. It is applied to
// the SoC as the row's build runs it (after Era.Apply), with
// model.SoC.SetWithTypes, so a kernel class's rate carries its types.
type Set struct {
	Path  string  `json:"path"`
	Value float64 `json:"value"`
}

// String is the set as ParseSet reads it.
func (s Set) String() string {
	return s.Path + "=" + strconv.FormatFloat(s.Value, 'g', -1, 64)
}

// ParseSet reads PATH=VALUE.
func ParseSet(text string) (Set, error) {
	path, val, ok := strings.Cut(text, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Set{}, fmt.Errorf("%q: want PATH=VALUE, e.g. engines.*.gemv_overlap=0.73", text)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil {
		return Set{}, fmt.Errorf("%q: the value %q is not a number", text, val)
	}
	return Set{Path: path, Value: v}, nil
}

// apply makes the sets on s (a copy of the row's SoC), then checks that
// the result is still a SoC blsim simulates. An engine the SoC lacks, a
// path that names no parameter, or a value out of its range is an error
// naming the set.
func applySets(s *model.SoC, sets []Set) error {
	for _, set := range sets {
		paths := []string{set.Path}
		if rest, ok := strings.CutPrefix(set.Path, "engines.*."); ok {
			paths = nil
			for _, e := range s.Engines {
				if !e.IsAccelerator() {
					paths = append(paths, "engines."+e.Name+"."+rest)
				}
			}
		}
		for _, p := range paths {
			if err := s.SetWithTypes(p, set.Value); err != nil {
				return fmt.Errorf("what-if %s on %s: %w", set, s.Name, err)
			}
		}
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("what-if %s on %s: %w", joinSets(sets), s.Name, err)
	}
	return nil
}

func joinSets(sets []Set) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}
