package presets

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/blsim/blsim/parts"
)

// PartsNote is what the SoC preset name's file does not show because its
// parts fill it in: a YAML comment counting the values the parts add and
// naming the uncertainties among them, which a prediction's interval
// draws as it draws the file's own (ddr5 lists 6 and loads 8, its cores'
// gemv_overlap); "" for a preset that names no part.
func PartsNote(name string) (string, error) {
	s, res, err := ResolveSoC(name)
	if err != nil {
		return "", err
	}
	n := 0
	var unc []string
	for _, path := range slices.Sorted(maps.Keys(res.Sources)) {
		src := res.Sources[path]
		if src.Layer != parts.FromPart {
			continue
		}
		n++
		if p, ok := strings.CutPrefix(path, "uncertainty."); ok {
			unc = append(unc, fmt.Sprintf("%s %g (part %s)", p, s.Uncertainty[p], src.Part))
		}
	}
	if n == 0 {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The parts fill in %d more values", n)
	if len(unc) > 0 {
		fmt.Fprintf(&b, ", %d of them uncertainties (%d in all, drawn by every interval):\n", len(unc), len(s.Uncertainty))
		for _, u := range unc {
			fmt.Fprintf(&b, "#   uncertainty %s\n", u)
		}
	} else {
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "# blsim socs show %s --resolved prints every value with its source.\n", name)
	return b.String(), nil
}
