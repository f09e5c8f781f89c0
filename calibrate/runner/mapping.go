package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/internal/yamlx"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

// Names is a list of knob names, tried in order: the first one a point sets
// wins. Env names are variables (ORK_BL_POLL); arg names start with '-'
// (--poll). In YAML it is one name or a list.
type Names []string

// UnmarshalYAML reads one name or a list of names.
func (ns *Names) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*ns = nil
			return nil
		}
		*ns = Names{n.Value}
	case yaml.SequenceNode:
		var out Names
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: knob names must be strings", item.Line)
			}
			out = append(out, item.Value)
		}
		*ns = out
	default:
		return fmt.Errorf("line %d: want a knob name or a list of names", n.Line)
	}
	for _, name := range *ns {
		if name == "" {
			return fmt.Errorf("line %d: empty knob name", n.Line)
		}
	}
	return nil
}

// Engines names the two engines of a split plan, as the SoC profile calls
// them.
type Engines struct {
	Big    string `yaml:"big"`
	Little string `yaml:"little"`
}

// Mapping says what a fork's knobs mean to blsim's model, so that a run's
// knobs can be turned into the dispatch plan it ran.
//
// In YAML (unknown keys are errors):
//
//	enable: ORK_MOE_BIGLITTLE          # the split is on when this knob is set...
//	enable_values: ["1", "true", "on", "yes"]   # ...to one of these (any case)
//	little_frac: ORK_BL_LITTLE_FRAC    # the little engine's share, 0..1
//	poll: [ORK_BL_POLL, --poll]        # first one set wins
//	split: ORK_BL_SPLIT                # token or expert...
//	split_values: {token: token, expert: expert}   # ...or the fork's words for them
//	little_threads: ORK_BL_LITTLE_THREADS
//	big_threads: [ORK_BL_BIG_THREADS, -t, --threads]
//	defaults: {ORK_BL_LITTLE_THREADS: "4"}  # the fork's defaults for knobs a run leaves unset
//	engines: {big: big, little: little}
//	n_threads: total                   # the records count big+little threads (big, total or ignore)
//	depends: {MY_CHUNK: {ORK_MOE_BIGLITTLE: ["1"]}}   # MY_CHUNK changes nothing unless the split is on
//
// A file replaces the whole mapping: a field it leaves out names no knob,
// except enable_values, split_values and engines, which then take
// DefaultMapping's. Without an enable knob the split is on whenever the
// little fraction is above 0.
type Mapping struct {
	Enable        Names             `yaml:"enable"`
	EnableValues  []string          `yaml:"enable_values"`
	LittleFrac    Names             `yaml:"little_frac"`
	Poll          Names             `yaml:"poll"`
	Split         Names             `yaml:"split"`
	SplitValues   SplitWords        `yaml:"split_values"`
	LittleThreads Names             `yaml:"little_threads"`
	BigThreads    Names             `yaml:"big_threads"`
	Defaults      map[string]string `yaml:"defaults"`
	Engines       Engines           `yaml:"engines"`
	// NThreads says how the fork's records count n_threads: "big" (the
	// big engine's threads, as stock llama-bench counts its one pool),
	// "total" (big plus little threads of a split run), "ignore" (the field
	// means nothing; the knobs alone set the threads), or "" (auto: when the
	// knobs set every engine's threads, either count matches; when a
	// split's big threads come from the record, it counts the big ones).
	NThreads ThreadCount `yaml:"n_threads"`
	// Depends says, for knobs of the fork's own, when they can change a
	// run (Condition); a grid runs the points that differ only in a knob
	// that cannot once (Config.Distinct).
	Depends map[string]Condition `yaml:"depends"`
}

// DefaultMapping returns the knobs of the seed experiment's llama.cpp fork:
// ORK_MOE_BIGLITTLE=1 turns the split on, ORK_BL_LITTLE_FRAC is the little
// share, ORK_BL_SPLIT token or expert (token when unset), ORK_BL_POLL (or
// llama-bench's --poll) the poll level, ORK_BL_BIG_THREADS (or llama-bench's
// -t/--threads) and ORK_BL_LITTLE_THREADS (4 when unset, the RK3588's four
// Cortex-A55) the thread counts. Engines are "big" and "little".
func DefaultMapping() Mapping {
	return Mapping{
		Enable:        Names{"ORK_MOE_BIGLITTLE"},
		EnableValues:  []string{"1", "true", "on", "yes"},
		LittleFrac:    Names{"ORK_BL_LITTLE_FRAC"},
		Poll:          Names{"ORK_BL_POLL", "--poll"},
		Split:         Names{"ORK_BL_SPLIT"},
		SplitValues:   SplitWords{"token": model.TokenSplit, "tokens": model.TokenSplit, "expert": model.ExpertSplit, "experts": model.ExpertSplit},
		LittleThreads: Names{"ORK_BL_LITTLE_THREADS"},
		BigThreads:    Names{"ORK_BL_BIG_THREADS", "-t", "--threads"},
		Defaults:      map[string]string{"ORK_BL_SPLIT": string(model.TokenSplit), "ORK_BL_LITTLE_THREADS": "4"},
		Engines:       Engines{Big: "big", Little: "little"},
	}
}

// ParseMapping reads a mapping from YAML; name is used in errors.
func ParseMapping(data []byte, name string) (Mapping, error) {
	if err := yamlx.CheckBytes(data); err != nil {
		return Mapping{}, fmt.Errorf("knobs %s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var m Mapping
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return Mapping{}, fmt.Errorf("knobs %s: empty file", name)
		}
		return Mapping{}, fmt.Errorf("knobs %s: %s", name, yamlOneLine(err))
	}
	def := DefaultMapping()
	if m.EnableValues == nil {
		m.EnableValues = def.EnableValues
	}
	if m.SplitValues == nil {
		m.SplitValues = def.SplitValues
	}
	if m.Engines.Big == "" {
		m.Engines.Big = def.Engines.Big
	}
	if m.Engines.Little == "" {
		m.Engines.Little = def.Engines.Little
	}
	if err := m.Validate(); err != nil {
		return Mapping{}, fmt.Errorf("knobs %s: %s", name, yamlOneLine(err))
	}
	return m, nil
}

// LoadMapping reads the mapping file at path.
func LoadMapping(path string) (Mapping, error) {
	data, err := readfile.Read(path, readfile.YAMLLimit)
	if err != nil {
		return Mapping{}, fmt.Errorf("knobs: %w", err)
	}
	return ParseMapping(data, path)
}

// Validate checks the mapping: two distinct engines, split values that
// name token or expert, and enable values when there is an enable knob.
func (m Mapping) Validate() error {
	if m.Engines.Big == "" || m.Engines.Little == "" || m.Engines.Big == m.Engines.Little {
		return fmt.Errorf("engines %q and %q must be two different names", m.Engines.Big, m.Engines.Little)
	}
	for k, v := range m.SplitValues {
		if !v.IsSplit() {
			return fmt.Errorf("split_values: %q means %q, want %s", k, v, model.ModeList(model.SplitModes()))
		}
	}
	if len(m.Enable) > 0 && len(m.EnableValues) == 0 {
		return errors.New("enable names a knob but enable_values is empty")
	}
	for k := range m.Defaults {
		if k == "" {
			return errors.New("defaults: empty knob name")
		}
	}
	if !m.NThreads.Known() {
		return fmt.Errorf("n_threads: %q is not a thread count (known: %s, or empty for auto)", m.NThreads, enum.List(threadCounts))
	}
	for k, c := range m.Depends {
		if k == "" || len(c) == 0 {
			return fmt.Errorf("depends: %q: want a knob name and at least one knob it depends on", k)
		}
		for on, values := range c {
			if on == "" || on == k || len(values) == 0 {
				return fmt.Errorf("depends: %s: %q: want another knob's name and the values it must have", k, on)
			}
		}
	}
	return nil
}

// isZero reports whether m is the zero Mapping.
func (m Mapping) isZero() bool {
	return len(m.Enable) == 0 && m.EnableValues == nil && len(m.LittleFrac) == 0 && len(m.Poll) == 0 &&
		len(m.Split) == 0 && m.SplitValues == nil && len(m.LittleThreads) == 0 && len(m.BigThreads) == 0 &&
		m.Defaults == nil && m.Engines == Engines{} && m.NThreads == "" && m.Depends == nil
}

// EnvNames returns the names of the mapping that are environment variables
// (not flags), without repeats.
func (m Mapping) EnvNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, ns := range []Names{m.Enable, m.LittleFrac, m.Poll, m.Split, m.LittleThreads, m.BigThreads} {
		for _, n := range ns {
			if !strings.HasPrefix(n, "-") && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// lookup returns the value of the first of names that knobs sets, else
// the first that Defaults sets.
func (m Mapping) lookup(knobs map[string]string, names Names) (name, value string, ok bool) {
	for _, n := range names {
		if v, ok := knobs[n]; ok {
			return n, v, true
		}
	}
	for _, n := range names {
		if v, ok := m.Defaults[n]; ok {
			return n, v, true
		}
	}
	return "", "", false
}

// KnobPlan is what a run's knobs say of its plan, read by a mapping's
// vocabulary (Mapping.Read). A field is nil when none of its knob's names
// is set and none has a default.
type KnobPlan struct {
	// On is the enable knob: the split on or off.
	On *bool
	// Mode is the split knob's mode: token or expert.
	Mode *model.Mode
	// Frac is the little engine's share, in [0,1].
	Frac *float64
	// Poll is the poll level, 0..100.
	Poll *int
	// BigThreads and LittleThreads are the engines' thread counts, at
	// least 1.
	BigThreads, LittleThreads *int
}

// offValues are the enable knob's values that switch the split off.
var offValues = []string{"0", "false", "off", "no"}

// maxThreads bounds a thread knob.
const maxThreads = 1 << 16

// Read reads knobs (a run's knob names and values) by m's vocabulary,
// filling in m.Defaults for the knobs a run leaves unset. It is the one
// reading of a fork's knobs: Plan turns it into the plan a run ran, and
// the built-in dispatcher reads its environment with it
// (dispatch.Knobs.ApplyEnv). Every knob set is checked, whether or not
// the plan it makes uses it: the enable knob is on for one of
// EnableValues and off for 0, false, off or no (any case), the split one
// of SplitValues' words, the fraction in [0,1], the poll level 0..100 and
// the thread counts 1..65536. An error names the knob and its value.
func (m Mapping) Read(knobs map[string]string) (KnobPlan, error) {
	var kp KnobPlan
	if name, v, ok := m.lookup(knobs, m.Enable); ok {
		w := strings.TrimSpace(v)
		on := slices.ContainsFunc(m.EnableValues, func(s string) bool { return strings.EqualFold(w, s) })
		if !on && !slices.ContainsFunc(offValues, func(s string) bool { return strings.EqualFold(w, s) }) {
			return kp, fmt.Errorf("%s=%q is neither on (%s) nor off (%s)", name, v, strings.Join(m.EnableValues, ", "), strings.Join(offValues, ", "))
		}
		kp.On = &on
	}
	if name, v, ok := m.lookup(knobs, m.Split); ok {
		mode, ok := m.SplitValues[strings.ToLower(strings.TrimSpace(v))]
		if !ok {
			return kp, fmt.Errorf("%s=%q is not a split mode the mapping knows (%s)", name, v, strings.Join(slices.Sorted(maps.Keys(m.SplitValues)), ", "))
		}
		kp.Mode = &mode
	}
	if name, v, ok := m.lookup(knobs, m.LittleFrac); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return kp, fmt.Errorf("%s=%q is not a fraction in [0,1]", name, v)
		}
		kp.Frac = &f
	}
	readInt := func(names Names, lo, hi int, what string) (*int, error) {
		name, v, ok := m.lookup(knobs, names)
		if !ok {
			return nil, nil
		}
		// llama-bench takes lists ("-t 4,8") but a grid point is one run:
		// only a single count is meaningful here.
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%s=%q is not %s %d..%d", name, v, what, lo, hi)
		}
		return &n, nil
	}
	var err error
	if kp.Poll, err = readInt(m.Poll, 0, 100, "a poll level"); err != nil {
		return kp, err
	}
	if kp.BigThreads, err = readInt(m.BigThreads, 1, maxThreads, "a thread count"); err != nil {
		return kp, err
	}
	if kp.LittleThreads, err = readInt(m.LittleThreads, 1, maxThreads, "a thread count"); err != nil {
		return kp, err
	}
	return kp, nil
}

// Plan returns the dispatch plan a run of point ran, given the record it
// printed (for what the knobs leave unset: llama-bench's n_threads and
// poll), from the knobs as Read reads them. The plan is native on the big
// engine when the enable knob is not on or the little fraction is 0;
// otherwise a token or expert split (token when the split knob is unset)
// with fractions [1-f, f] and the big and little thread counts. Poll comes
// from the poll knob, else the record's poll field, else ggml's default 50.
func (m Mapping) Plan(p Point, rec llamabench.Record) (model.Plan, error) {
	kp, err := m.Read(p.Knobs)
	if err != nil {
		return model.Plan{}, fmt.Errorf("plan: %w", err)
	}
	enabled := len(m.Enable) == 0 || (kp.On != nil && *kp.On)
	frac := 0.0
	if enabled {
		if kp.Frac == nil {
			if len(m.LittleFrac) == 0 {
				return model.Plan{}, errors.New("plan: the split is on but the mapping names no little_frac knob")
			}
			return model.Plan{}, fmt.Errorf("plan: the split is on but %s is not set", m.LittleFrac[0])
		}
		frac = *kp.Frac
	}

	poll := 50
	if kp.Poll != nil {
		poll = *kp.Poll
	} else if _, ok := rec.Fields["poll"]; ok {
		poll = rec.Poll
	}

	recBig := rec.NThreads
	if m.NThreads == ThreadsIgnore {
		recBig = 0
	}
	if frac > 0 && m.NThreads == ThreadsTotal && recBig > 0 {
		// n_threads counts both pools: the big ones are what the little
		// knob leaves (when it is set; else the count is unknown).
		recBig = 0
		if kp.LittleThreads != nil && rec.NThreads > *kp.LittleThreads {
			recBig = rec.NThreads - *kp.LittleThreads
		}
	}
	big, err := m.threads(kp.BigThreads, m.BigThreads, recBig)
	if err != nil {
		return model.Plan{}, err
	}
	if frac == 0 {
		return model.Plan{Mode: model.Native, Engines: []string{m.Engines.Big}, Fracs: []float64{1},
			Threads: []int{big}, Poll: poll}, nil
	}
	little, err := m.threads(kp.LittleThreads, m.LittleThreads, 0)
	if err != nil {
		return model.Plan{}, err
	}
	mode := model.TokenSplit
	if kp.Mode != nil {
		mode = *kp.Mode
	}
	return model.Plan{Mode: mode, Engines: []string{m.Engines.Big, m.Engines.Little},
		Fracs: []float64{roundFrac(1 - frac), frac}, Threads: []int{big, little}, Poll: poll}, nil
}

// threads is a thread count: the knob's (n, read from names), else
// fallback (a record's n_threads) when positive.
func (m Mapping) threads(n *int, names Names, fallback int) (int, error) {
	if n != nil {
		return *n, nil
	}
	if fallback > 0 {
		return fallback, nil
	}
	if len(names) == 0 {
		return 0, errors.New("plan: thread count unknown: the mapping names no knob and the output has no n_threads")
	}
	return 0, fmt.Errorf("plan: thread count unknown: %s is not set and the output has no n_threads", strings.Join(names, " or "))
}

// roundFrac removes the float noise of 1-f (1-0.3 is 0.7, not
// 0.7000000000000001) by rounding to 12 decimals.
func roundFrac(f float64) float64 { return math.Round(f*1e12) / 1e12 }

// Mismatch says why a record does not match the run its point asked for,
// or "" when it does: the thread count it reports (counted as NThreads
// says) against the plan's, its prompt length and ubatch against the -p
// and -ub knobs, its model file against the -m knob. A fork that reports
// differently is flagged, not fitted: a wrong plan would bias the fit.
func (m Mapping) Mismatch(p Point, rec llamabench.Record, plan model.Plan) string {
	if rec.NThreads > 0 && m.NThreads != ThreadsIgnore {
		total := 0
		for _, n := range plan.Threads {
			total += n
		}
		want, how := plan.Threads[0], "the big engine's"
		if m.NThreads == ThreadsTotal {
			want, how = total, "all engines'"
		}
		// Auto: a fork that counts both pools says so by printing their sum.
		auto := m.NThreads == ThreadsAuto && rec.NThreads == total
		if rec.NThreads != want && !auto {
			hint := "n_threads: total"
			if m.NThreads == ThreadsTotal {
				hint = "n_threads: big"
			}
			return fmt.Sprintf("the record says n_threads %d, but the knobs imply %d (%s threads, plan %s %v); if your fork counts threads another way, say %q in --knobs",
				rec.NThreads, want, how, plan.Mode, plan.Threads, hint)
		}
	}
	intKnob := func(names ...string) (string, int, bool) {
		for _, n := range names {
			if v, ok := p.Knobs[n]; ok {
				k, err := strconv.Atoi(strings.TrimSpace(v))
				return n, k, err == nil
			}
		}
		return "", 0, false
	}
	// llama-bench runs a pp test for -p and a tg test for -n, each its
	// own record (the other count 0), and pp+tg for -pg.
	test := measure.Run{PromptTokens: rec.NPrompt, GenTokens: rec.NGen}.Test()
	if name, n, ok := intKnob("-p", "--n-prompt"); ok && rec.NGen == 0 && rec.NPrompt != n {
		return fmt.Sprintf("the record's test is %s, but %s=%d asked for pp%d", test, name, n, n)
	}
	if name, n, ok := intKnob("-n", "--n-gen"); ok && rec.NPrompt == 0 && rec.NGen != n {
		return fmt.Sprintf("the record's test is %s, but %s=%d asked for tg%d", test, name, n, n)
	}
	for _, name := range []string{"-pg"} {
		v, ok := p.Knobs[name]
		if !ok || rec.NPrompt == 0 || rec.NGen == 0 {
			continue
		}
		var pn, gn int
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d,%d", &pn, &gn); err == nil && (rec.NPrompt != pn || rec.NGen != gn) {
			return fmt.Sprintf("the record's test is %s, but %s=%s asked for pp%d+tg%d", test, name, v, pn, gn)
		}
	}
	if name, n, ok := intKnob("-ub", "--ubatch-size"); ok && rec.NUbatch > 0 && rec.NUbatch != n {
		return fmt.Sprintf("the record's ubatch is %d, but %s=%d asked for %d", rec.NUbatch, name, n, n)
	}
	for _, name := range []string{"-m", "--model"} {
		if v, ok := p.Knobs[name]; ok && rec.ModelFilename != "" && path.Base(v) != path.Base(rec.ModelFilename) {
			return fmt.Sprintf("the record's model is %s, but %s=%s asked for %s", rec.ModelFilename, name, v, path.Base(v))
		}
	}
	return ""
}
