package cli

import (
	"slices"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/presets"
)

// PresetOrFile is the YAML `blsim socs show REF` prints: the preset REF
// names, or, when REF is no preset and names a file, the file as it is.
func PresetOrFile(ref string, names func() []string, data func(string) ([]byte, error)) ([]byte, error) {
	b, err := data(ref)
	if err != nil && !slices.Contains(names(), ref) && presets.IsFile(ref) {
		b, err = readfile.Read(ref, readfile.YAMLLimit)
	}
	return b, err
}
