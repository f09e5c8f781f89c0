package presets

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/hfconfig"
	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
)

//go:embed socs/*.yaml workloads/*.yaml models/*.yaml
var files embed.FS

// SoCNames lists the embedded SoC presets.
func SoCNames() []string { return names("socs") }

// WorkloadNames lists the embedded workload presets.
func WorkloadNames() []string { return names("workloads") }

// ModelNames lists the embedded model presets: public configs that
// blsim workloads new builds a workload from, with a scheme.
func ModelNames() []string { return names("models") }

// ModelData returns the YAML of an embedded model preset.
func ModelData(name string) ([]byte, error) { return data("models", "model", name, ModelNames) }

// Model returns an embedded model preset.
func Model(name string) (*hfconfig.Preset, error) {
	b, err := ModelData(name)
	if err != nil {
		return nil, err
	}
	return hfconfig.ParsePreset(b, "model preset "+name)
}

func names(dir string) []string {
	entries, _ := fs.ReadDir(files, dir)
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// SoCData returns the YAML of an embedded SoC preset.
func SoCData(name string) ([]byte, error) { return data("socs", "soc", name, SoCNames) }

// WorkloadData returns the YAML of an embedded workload preset.
func WorkloadData(name string) ([]byte, error) {
	return data("workloads", "workload", name, WorkloadNames)
}

func data(dir, kind, name string, list func() []string) ([]byte, error) {
	b, err := files.ReadFile(dir + "/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("unknown %s preset %q (have %s)", kind, name, strings.Join(list(), ", "))
	}
	return b, nil
}

// SoC returns an embedded SoC preset.
func SoC(name string) (*model.SoC, error) {
	b, err := SoCData(name)
	if err != nil {
		return nil, err
	}
	return model.ParseSoC(b, "preset "+name)
}

// Workload returns an embedded workload preset.
func Workload(name string) (*model.Workload, error) {
	b, err := WorkloadData(name)
	if err != nil {
		return nil, err
	}
	return model.ParseWorkload(b, "preset "+name)
}

// LoadSoC resolves ref as a file when it names one (or ends in .yaml,
// .yml or .gguf or contains a path separator), else as a preset name.
func LoadSoC(ref string) (*model.SoC, error) {
	if IsFile(ref) {
		return model.LoadSoCFile(ref)
	}
	return SoC(ref)
}

// LoadWorkload resolves ref like LoadSoC. A file that is a GGUF model
// (it starts with the GGUF magic, whatever its name) is read by its header
// alone (gguf.Read); any other file is workload YAML.
func LoadWorkload(ref string) (*model.Workload, error) {
	if IsFile(ref) {
		if IsGGUF(ref) {
			m, err := gguf.Read(ref)
			if err != nil {
				return nil, err
			}
			return m.Workload()
		}
		return model.LoadWorkloadFile(ref)
	}
	return Workload(ref)
}

// CheckGGUF says why path is not a GGUF model file: "PATH: no such file"
// when nothing is there, or that it lacks the GGUF magic (--workload
// takes YAML too); nil when it is one.
func CheckGGUF(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file", path)
	} else if err != nil {
		return err
	}
	if !IsGGUF(path) {
		return fmt.Errorf("%s is not a GGUF model file (no GGUF magic); --workload takes YAML", path)
	}
	return nil
}

// IsGGUF reports whether path is a regular file that starts with the GGUF
// magic.
func IsGGUF(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false // a device or a FIFO is refused by the YAML reader
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 4 && string(b[:]) == gguf.Magic
}

// IsFile says whether ref names a file rather than a preset: a .yaml,
// .yml or .gguf name, a path, or a file that exists.
func IsFile(ref string) bool {
	if strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml") || strings.HasSuffix(ref, ".gguf") || strings.ContainsRune(ref, os.PathSeparator) {
		return true
	}
	_, err := os.Stat(ref)
	return err == nil
}

// ResolveSoC loads a SoC like LoadSoC and says where each of its values
// came from: the parts it names, the file, or a calibration
// (parts.Resolve).
func ResolveSoC(ref string) (*model.SoC, *parts.Resolution, error) {
	if IsFile(ref) {
		data, err := readfile.Read(ref, readfile.YAMLLimit)
		if err != nil {
			return nil, nil, fmt.Errorf("soc: %w", err)
		}
		return model.ResolveSoC(data, ref)
	}
	b, err := SoCData(ref)
	if err != nil {
		return nil, nil, err
	}
	return model.ResolveSoC(b, "preset "+ref)
}

// SoCDescription is the description of the SoC preset name.
func SoCDescription(name string) (string, error) {
	s, err := SoC(name)
	if err != nil {
		return "", err
	}
	return s.Description, nil
}

// WorkloadDescription is the description of the workload preset name.
func WorkloadDescription(name string) (string, error) {
	w, err := Workload(name)
	if err != nil {
		return "", err
	}
	return w.Description, nil
}

// WriteResolvedSoC writes the SoC ref (a preset or a file) resolved, each
// value with its source (parts.WriteResolved).
func WriteResolvedSoC(w io.Writer, ref string) error {
	s, res, err := ResolveSoC(ref)
	if err != nil {
		return err
	}
	return model.WriteResolved(w, s, res)
}

// ReplacedParts says which part values of the prior ref (a preset or a
// file that names core and memory parts) a calibration replaced: each
// fitted parameter (path to fitted value) whose prior a part gave, with
// the part's value and the fitted one; "" when none was.
func ReplacedParts(ref string, fitted map[string]float64) string {
	if ref == "" {
		return ""
	}
	s, res, err := ResolveSoC(ref)
	if err != nil {
		return ""
	}
	var out []string
	for _, path := range slices.Sorted(maps.Keys(fitted)) {
		if src := res.Of(path); src.Layer == parts.FromPart {
			was, _ := s.Get(path)
			out = append(out, fmt.Sprintf("%s (part %s: %.4g -> %.4g)", path, src.Part, was, fitted[path]))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "calibration replaced part values: " + strings.Join(out, ", ")
}

// SoCPreset is the preset SoC profile ref is: ref itself when it names a
// preset, or the preset a profile file is an unchanged copy of (`blsim
// socs show NAME > mine.yaml`: the same name and the same values once
// loaded), so that the copy behaves as the preset does (its built-in
// measurements, its warnings); "" otherwise.
func SoCPreset(ref string) string {
	if !IsFile(ref) {
		if slices.Contains(SoCNames(), ref) {
			return ref
		}
		return ""
	}
	s, err := model.LoadSoCFile(ref)
	if err != nil || !slices.Contains(SoCNames(), s.Name) {
		return ""
	}
	p, err := SoC(s.Name)
	if err != nil || !reflect.DeepEqual(s, p) {
		return ""
	}
	return s.Name
}
