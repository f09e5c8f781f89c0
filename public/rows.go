package public

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// Row is one measured rate from a public source (see rows.yaml for the
// fields' meaning).
type Row struct {
	ID       string `yaml:"id" json:"id"`
	Family   string `yaml:"family" json:"family"`
	Source   string `yaml:"source" json:"source"`
	Device   string `yaml:"device" json:"device"`
	SoC      string `yaml:"soc" json:"soc"`
	Model    string `yaml:"model" json:"model,omitempty"`
	Scheme   string `yaml:"scheme" json:"scheme,omitempty"`
	Imatrix  bool   `yaml:"imatrix" json:"imatrix,omitempty"`
	Workload string `yaml:"workload" json:"workload,omitempty"`
	// Assumed is what the source does not state and the row takes.
	Assumed string `yaml:"assumed" json:"assumed,omitempty"`
	Threads int    `yaml:"threads" json:"threads"`
	// Clusters places the threads ("big=4"); empty: the SoC's clusters
	// in order, each filled before the next.
	Clusters  string `yaml:"clusters" json:"clusters,omitempty"`
	Placement string `yaml:"placement" json:"placement"`
	// OS is the system that placed the threads (linux, android, macos,
	// windows: model.Placement); empty: the family's (FamilyOS).
	OS    string  `yaml:"os" json:"os,omitempty"`
	Test  string  `yaml:"test" json:"test"`
	TPS   float64 `yaml:"tps" json:"tps"`
	Build string  `yaml:"build" json:"build,omitempty"`
	// Date is the build's (or, where the build is not stated, the
	// report's) date: YYYY, YYYY-MM or YYYY-MM-DD.
	Date           string `yaml:"date" json:"date"`
	Sweep          string `yaml:"sweep" json:"sweep,omitempty"`
	Sets           string `yaml:"sets" json:"sets,omitempty"`
	NotExpressible string `yaml:"not_expressible" json:"not_expressible,omitempty"`
	Gap            string `yaml:"gap" json:"gap,omitempty"`
	// Packed are GGML types the row's build packs at load where its
	// date's stock build did not (a PR build's own packed kernels): they
	// run the repacked path (Era.Packed).
	Packed []string `yaml:"packed" json:"packed,omitempty"`
	// DRAM is the row's device memory where the source states one that
	// differs from its SoC preset's (TYPE-MTSxBITS, as `blsim socs new
	// --dram` takes it: ddr5-6400x128): the preset runs with it
	// (presets.SoCWithDRAM). A fact of the device, not a tuned value.
	DRAM string `yaml:"dram" json:"dram,omitempty"`
}

//go:embed rows.yaml
var rowsYAML []byte

// PlannedSoCs are the SoC presets the rows name: those blsim has, and
// those the parts library (issue 25) adds. A row naming a preset that
// does not exist yet is not expressible until it does; a row naming one
// outside this list is an error.
var PlannedSoCs = []string{"rk3588", "pi5", "snapdragon-8-gen3", "dimensity-9500s", "i9-13900k", "ryzen-7-6800h",
	"apple-m1", "apple-m1-max", "apple-m4", "apple-m4-pro"}

// Families are the row families, for --family.
var Families = []string{"rk3588", "pi", "snapdragon", "mediatek", "intel", "amd", "apple"}

// FamilyOS is the system a family's rows ran on where a row does not say:
// the boards' Linux (Debian, Ubuntu, Raspberry Pi OS), the phones'
// Android, the Macs' macOS; the x86 reports name no OS and are taken as
// Linux, which places threads on a hybrid Intel chip as Windows 11 does
// (P-cores, E-cores, then the P-cores' siblings: model.PlaceWindows) and
// differs only in its time slice, which no row within the hardware
// threads meets.
var FamilyOS = map[string]model.Placement{"rk3588": model.PlaceLinux, "pi": model.PlaceLinux, "snapdragon": model.PlaceAndroid,
	"mediatek": model.PlaceAndroid, "intel": model.PlaceLinux, "amd": model.PlaceLinux, "apple": model.PlaceMacOS}

// Placements a row may name: pinned (Clusters says where), os (the OS
// placed an unpinned -t N: Policy), app (an app ran llama.cpp: the rows'
// only app, PocketPal, runs llama.rn, which since 2025-09 asks for thread
// k on the k-th fastest CPU by cpuinfo_max_freq, mybigday/llama.rn PR
// #208, set_best_cores; on Android ggml applies no affinity, so the OS
// places them as it places an unpinned -t N: model.PlaceAndroid).
var rowPlacements = []string{"pinned", "os", "app"}

// Policy is the placement policy of the row's OS.
func (r *Row) Policy() model.Placement {
	if r.OS != "" {
		p, _ := model.ParsePlacement(r.OS)
		return p
	}
	return FamilyOS[r.Family]
}

// Rows are the embedded rows, checked (Check).
func Rows() ([]Row, error) { return ParseRows(rowsYAML, "rows.yaml") }

// ParseRows reads and checks rows; name stands for the file in errors.
func ParseRows(b []byte, name string) ([]Row, error) {
	var doc struct {
		Rows []Row `yaml:"rows"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %s", name, strings.Join(strings.Fields(err.Error()), " "))
	}
	seen := map[string]bool{}
	for i := range doc.Rows {
		r := &doc.Rows[i]
		if seen[r.ID] {
			return nil, fmt.Errorf("%s: row %s given twice", name, r.ID)
		}
		seen[r.ID] = true
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return doc.Rows, nil
}

var (
	testRE = regexp.MustCompile(`^(pp|tg)([1-9][0-9]*)$`)
	dateRE = regexp.MustCompile(`^20[0-9]{2}(-[01][0-9](-[0-3][0-9])?)?$`)
)

// Check is the row's own consistency: one line naming the row and field.
func (r *Row) Check() error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("row %s: %s: %s", r.ID, field, fmt.Sprintf(format, a...))
	}
	switch {
	case r.ID == "":
		return fmt.Errorf("a row without an id")
	case r.Source == "" || localSource(r.Source):
		return bad("source", "%q: a public source (an issue, PR or repository file)", r.Source)
	case !contains(Families, r.Family):
		return bad("family", "%q is not one of %s", r.Family, strings.Join(Families, ", "))
	case r.SoC == "":
		return bad("soc", "missing")
	case r.TPS <= 0:
		return bad("tps", "%g: want a measured rate", r.TPS)
	case r.Threads < 1:
		return bad("threads", "%d", r.Threads)
	case !dateRE.MatchString(r.Date):
		return bad("date", "%q: want YYYY, YYYY-MM or YYYY-MM-DD", r.Date)
	case r.NotExpressible == "" && (r.Model == "") == (r.Workload == ""):
		return bad("model", "give a model preset (with its scheme) or a workload preset")
	case r.Model != "" && r.Scheme == "":
		return bad("scheme", "missing for model %s", r.Model)
	case r.Sets != "" && r.Gap != "":
		return bad("gap", "a row that set a value is not scored, so it has no gap")
	case !contains(rowPlacements, r.Placement):
		return bad("placement", "%q: want %s", r.Placement, strings.Join(rowPlacements, ", "))
	case r.Placement == "pinned" && r.Clusters == "":
		return bad("clusters", "a pinned row says where its threads sat (big=4)")
	case r.Placement != "pinned" && r.Clusters != "":
		return bad("clusters", "%q on a row the %s placed: its policy places the threads", r.Clusters, r.Placement)
	}
	if r.OS != "" {
		if p, err := model.ParsePlacement(r.OS); err != nil || p == model.PlaceStrict {
			return bad("os", "%q: want linux, android, macos or windows", r.OS)
		}
	}
	for _, t := range r.Packed {
		if t == "" || t != strings.ToLower(t) {
			return bad("packed", "%q: want a GGML type in lower case (q8_0)", t)
		}
	}
	if r.DRAM != "" {
		if _, err := parts.ParseDRAM(r.DRAM); err != nil {
			return bad("dram", "%v", err)
		}
	}
	if _, err := r.Run(); err != nil {
		return bad("test", "%v", err)
	}
	if _, err := r.clusterCounts(); err != nil {
		return bad("clusters", "%v", err)
	}
	return nil
}

// Run is the row's test as blsim runs it: ppN (a prompt of N tokens, in
// ubatches of up to 512) or tgN (N generated tokens).
func (r *Row) Run() (model.Run, error) {
	m := testRE.FindStringSubmatch(r.Test)
	if m == nil {
		return model.Run{}, fmt.Errorf("%q: want ppN or tgN", r.Test)
	}
	n, _ := strconv.Atoi(m[2])
	if m[1] == "tg" {
		return model.Run{GenTokens: n, Ubatch: 512}, nil
	}
	return model.Run{PromptTokens: n, Ubatch: min(n, 512)}, nil
}

// clusterCounts reads Clusters: "big=4" or "big=4,little=2".
func (r *Row) clusterCounts() ([][2]string, error) {
	if r.Clusters == "" {
		return nil, nil
	}
	var out [][2]string
	total := 0
	for _, part := range strings.Split(r.Clusters, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 1 || name == "" {
			return nil, fmt.Errorf("%q: want NAME=THREADS, comma separated", r.Clusters)
		}
		total += k
		out = append(out, [2]string{name, n})
	}
	if total != r.Threads {
		return nil, fmt.Errorf("%q places %d threads, the row has %d", r.Clusters, total, r.Threads)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// localSource reports whether source names a file on someone's disk (an
// absolute or relative path, or the project's private notes folder, which
// is not in the repository) rather than a public place.
func localSource(source string) bool {
	first, _, _ := strings.Cut(source, "/")
	return strings.HasPrefix(source, "/") || first == "." || first == ".." || first == "shared"
}
