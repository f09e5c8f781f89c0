package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/blsim/blsim/measure"
)

// InterferedPct is the share of a run's time, in percent, that other
// processes may take of one of its CPUs before the run counts as one that
// ran with interference when it is among a poor fit's worst (below
// measure.DisturbedPct the run was not re-run, but a pool that meets at
// barriers already feels it).
const InterferedPct = 2.0

// A Disturbance is a configuration whose every run other processes (or
// the hypervisor) disturbed beyond measure.DisturbedPct, even after its
// re-runs: it is kept out of fits and scores, because its value is the
// machine's moment, not the machine.
type Disturbance struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Runs counts the configuration's runs, all disturbed.
	Runs int `json:"runs"`
	// CPU is the CPU others took most of in the least disturbed run, and
	// OtherPct how much of that run's time they took of it (steal
	// included); Source is who took most of it, other processes or the
	// hypervisor; Describe says it in words.
	CPU      int            `json:"cpu"`
	OtherPct float64        `json:"other_pct"`
	Source   measure.Source `json:"source,omitempty"`
	Describe string         `json:"describe"`
	// Reruns counts the re-runs of the least disturbed run.
	Reruns int `json:"reruns"`
}

// preferQuiet drops, from the runs of one configuration, those that stayed
// disturbed (measure.Interference.Disturbed), when any run is not.
func preferQuiet(group []*measure.Measurement) []*measure.Measurement {
	var quiet []*measure.Measurement
	for _, m := range group {
		if m.Interference == nil || !m.Interference.Disturbed {
			quiet = append(quiet, m)
		}
	}
	if len(quiet) == 0 {
		return group
	}
	return quiet
}

// mergedInterference is the interference a merged configuration carries:
// the most disturbed of its runs' (nil when none was measured), a copy.
func mergedInterference(group []*measure.Measurement) *measure.Interference {
	var out *measure.Interference
	worst := -1.0
	for _, m := range group {
		if m.Interference == nil {
			continue
		}
		if _, p := m.Interference.Worst(); p > worst {
			c := *m.Interference
			out, worst = &c, p
		}
	}
	return out
}

// splitDisturbed separates the merged configurations whose runs all stayed
// disturbed from the others.
func splitDisturbed(obs []measure.Measurement) (clean []measure.Measurement, dist []Disturbance) {
	for _, m := range obs {
		in := m.Interference
		if in == nil || !in.Disturbed {
			clean = append(clean, m)
			continue
		}
		cpu, pct := in.Worst()
		runs := 1
		if n, err := fmt.Sscan(m.Knobs["runs"], &runs); n != 1 || err != nil {
			runs = 1
		}
		dist = append(dist, Disturbance{ID: m.ID, Label: threadsLabel(&m), Runs: runs, CPU: cpu, OtherPct: pct, Source: in.WorstSource(), Describe: in.Describe(), Reruns: in.Reruns})
	}
	return clean, dist
}

// threadsLabel is m's label with its threads when the label does not
// say them (a run on its workload's own prompt): "native poll=50 t=2".
func threadsLabel(m *measure.Measurement) string {
	l := m.Label()
	if m.Plan == nil || strings.Contains(l, " t=") {
		return l
	}
	t := make([]string, len(m.Plan.Threads))
	for i, n := range m.Plan.Threads {
		t[i] = fmt.Sprint(n)
	}
	return l + " t=" + strings.Join(t, "+")
}

// interfered reports whether the other processes on a residual's CPUs
// can explain its error: they took at least InterferedPct of a CPU's
// time, the run was slower than predicted (others only ever slow a run
// down), and by no more than twice what they can explain: a pool that
// shares a CPU for a share o of the run runs up to 1/(1-o) times longer.
func (r Residual) interfered() bool {
	o := r.OtherPct / 100
	if r.OtherPct < InterferedPct || r.ErrPct <= 0 || o >= 1 {
		return r.OtherPct >= InterferedPct && r.ErrPct > 0 && o >= 1
	}
	return r.ErrPct/100 <= 2*o/(1-o)
}

// InterferenceError says that a fit failed because of other processes,
// not because the model and the measurements disagree: too many
// configurations stayed disturbed (more than PoorDownweightedFrac of them),
// or the fit is poor and most of its worst configurations ran with others
// on their CPUs. It names them, with the figures, and what to do.
type InterferenceError struct {
	// Disturbed are the configurations kept out of the fit; N counts the
	// configurations, those included.
	Disturbed []Disturbance
	N         int
	// Poor is the poor fit (nil when the fit was not made or not poor), and
	// Worst its worst configurations that ran with interference.
	Poor  *PoorFitError
	Worst []Residual
	// Stat is the fit's statistic; Intermittent says that some runs came
	// out undisturbed when run again, so that the machine had quiet
	// moments: with Median, Best may then do better.
	Stat         Stat
	Intermittent bool
}

func (e *InterferenceError) Error() string {
	var b strings.Builder
	who := whoDisturbed(e.Disturbed, e.Worst)
	fmt.Fprintf(&b, "%s disturbed the runs (this is the machine's load, not the model): ", who)
	if len(e.Disturbed) > 0 {
		fmt.Fprintf(&b, "%d of %d configurations stayed disturbed", len(e.Disturbed), e.N)
		if r := e.Disturbed[0].Reruns; r > 0 {
			fmt.Fprintf(&b, " after %d re-runs", r)
		}
		b.WriteString(": ")
		b.WriteString(groupByCPU(e.Disturbed))
	}
	if e.Poor != nil && len(e.Worst) > 0 {
		if len(e.Disturbed) > 0 {
			b.WriteString("; and ")
		}
		fmt.Fprintf(&b, "the fit's MAPE is %.1f%%, and %d of its %d worst configurations ran with others on their CPUs: ", e.Poor.MAPE, len(e.Worst), len(e.Poor.Worst))
		var parts []string
		for _, r := range e.Worst {
			who := "others"
			if r.OtherSource == measure.Hypervisor {
				who = "steal"
			}
			parts = append(parts, fmt.Sprintf("%s %+.1f%% (cpu%d %.0f%% %s%s)", r.Label, r.ErrPct, r.OtherCPU, r.OtherPct, who, rerunText(r.Reruns)))
		}
		b.WriteString(strings.Join(parts, ", "))
	}
	b.WriteString("; re-run on a quiet machine")
	if who != measure.Others.String() {
		b.WriteString(" (steal is the host's other guests: another hour, or a VM with dedicated CPUs)")
	}
	if e.Stat != Best && e.Intermittent {
		b.WriteString(", or use --stat best")
	}
	return b.String()
}

func rerunText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", re-run once"
	}
	return fmt.Sprintf(", re-run %d times", n)
}

// groupByCPU says which CPUs others took, who took them and how much,
// with a few of the configurations: "11 configurations had another
// process on cpu0 for 41–52% of their time (native little poll=50, token
// f=0.2 poll=50, …)", or "3 configurations had the hypervisor take cpu1
// for 18–46% of their time (steal) (…)".
func groupByCPU(ds []Disturbance) string {
	type key struct {
		cpu int
		src measure.Source
	}
	by := map[key][]Disturbance{}
	var keys []key
	for _, d := range ds {
		k := key{d.CPU, d.Source}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], d)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.cpu != b.cpu {
			return a.cpu - b.cpu
		}
		return int(a.src) - int(b.src)
	})
	var parts []string
	for _, k := range keys {
		g := by[k]
		lo, hi := math.Inf(1), 0.0
		var labels []string
		for i, d := range g {
			lo, hi = math.Min(lo, d.OtherPct), math.Max(hi, d.OtherPct)
			if i < 3 {
				labels = append(labels, d.Label)
			}
		}
		if len(g) > 3 {
			labels = append(labels, fmt.Sprintf("%d more", len(g)-3))
		}
		share := fmt.Sprintf("%.0f%%", lo)
		if math.Round(hi) > math.Round(lo) {
			share = fmt.Sprintf("%.0f–%.0f%%", lo, hi)
		}
		noun := "configurations"
		if len(g) == 1 {
			noun = "configuration"
		}
		what := fmt.Sprintf("another process on cpu%d for %s of their time", k.cpu, share)
		if k.src == measure.Hypervisor {
			what = fmt.Sprintf("the hypervisor take cpu%d for %s of their time (steal)", k.cpu, share)
		}
		parts = append(parts, fmt.Sprintf("%d %s had %s (%s)", len(g), noun, what, strings.Join(labels, ", ")))
	}
	return strings.Join(parts, "; ")
}

// whoDisturbed names who disturbed the configurations ds and the
// residuals rs (measure.Who).
func whoDisturbed(ds []Disturbance, rs []Residual) string {
	var srcs []measure.Source
	for _, d := range ds {
		srcs = append(srcs, d.Source)
	}
	for _, r := range rs {
		srcs = append(srcs, r.OtherSource)
	}
	return measure.Who(srcs)
}

// interferenceCheck is Check's verdict on interference: an
// *InterferenceError when more than PoorDownweightedFrac of the
// configurations stayed disturbed, or when poor (the fit's own verdict,
// nil when it is not poor) and at least two of its worst configurations
// ran with interference; else nil.
func (r *Result) interferenceCheck(poor *PoorFitError) *InterferenceError {
	n := len(r.Residuals) + len(r.Disturbed)
	e := &InterferenceError{Disturbed: r.Disturbed, N: n, Stat: r.Stat}
	for _, x := range r.Residuals {
		e.Intermittent = e.Intermittent || x.Reruns > 0 && x.OtherPct < InterferedPct
	}
	tooMany := n > 0 && float64(len(r.Disturbed)) > PoorDownweightedFrac*float64(n)
	if poor != nil {
		for _, w := range poor.Worst {
			if w.interfered() {
				e.Worst = append(e.Worst, w)
			}
		}
		if len(e.Worst) >= min(2, len(poor.Worst)) {
			e.Poor = poor
		} else {
			e.Worst = nil
		}
	}
	if !tooMany && e.Poor == nil {
		return nil
	}
	if !tooMany {
		e.Disturbed = nil
	}
	return e
}
