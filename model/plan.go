package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

// Mode says how a plan divides the work between engines: the split modes
// divide only the routed-expert ops between pools; a pool divides every op
// among one pool's threads.
type Mode string

const (
	// Native runs everything on the main engine's pool.
	Native Mode = "native"
	// TokenSplit gives each engine a share of the ubatch's tokens; each
	// reads the weights of every expert its tokens touch.
	TokenSplit Mode = "token"
	// ExpertSplit gives each engine a share of the experts and all their
	// tokens; weights are read once, tokens gathered and scattered.
	ExpertSplit Mode = "expert"
	// PoolPlan is stock llama.cpp's one ggml thread pool over CPUs that may
	// span clusters (-t N, --cpu-mask, --cpu-strict): every op is divided
	// among all the pool's threads, and the threads meet at a spinning
	// barrier after each op, so the slowest gates it (see pool.go).
	PoolPlan Mode = "pool"
)

// The plan modes, listed once: every check, parse, completion and search
// over the modes asks these (SplitModes, Mode.Known, Mode.IsSplit; tests
// read modes through export_test.go's Modes). A new split mode is added to splitModes here, given its
// partition in sim (runner.splitParts and partFor), its style in plots
// (the split curve) and, to run it for real, its kernels in
// calibrate/dispatch.
var (
	splitModes = []Mode{TokenSplit, ExpertSplit}
	modes      = append(append([]Mode{Native}, splitModes...), PoolPlan)
)

// SplitModes are the modes that divide the routed-expert ops between
// engines, in the order predictions list them.
func SplitModes() []Mode { return slices.Clone(splitModes) }

func (m Mode) String() string { return string(m) }

// UnmarshalYAML reads a mode's name, one of the plan modes (Known); where
// only a split mode will do, Validate says so.
func (m *Mode) UnmarshalYAML(n *yaml.Node) error {
	return enum.Unmarshal(n, "plan mode", modes, m)
}

// Known says whether m is a plan mode (Modes).
func (m Mode) Known() bool { return slices.Contains(modes, m) }

// IsSplit says whether m divides the routed-expert ops between engines
// (SplitModes).
func (m Mode) IsSplit() bool { return slices.Contains(splitModes, m) }

// ModeList names modes as a sentence does: "token or expert",
// "native, token, expert or pool".
func ModeList(ms []Mode) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Plan says which engine runs what.
type Plan struct {
	Mode Mode `json:"mode"`
	// Engines are the participating engines by name; the first is the main
	// engine, which also runs every op that is not split. In a pool they
	// are the clusters the pool's threads sit on, the first holding the
	// main thread (thread 0).
	Engines []string `json:"engines"`
	// Fracs is each engine's share of the split ops' tokens (TokenSplit)
	// or experts (ExpertSplit); they sum to 1. Ignored for Native and
	// PoolPlan.
	Fracs []float64 `json:"fracs,omitempty"`
	// Threads per engine, in the order of Engines. A pool may run more
	// threads on an engine than it has cores (oversubscription: they are
	// time-sliced); every other mode at most its cores.
	Threads []int `json:"threads"`
	// Poll is the spin level 0..100 of the pools (ggml's --poll).
	Poll int `json:"poll"`
	// BusyCores is, per engine in the order of Engines, how many of its
	// cores run something else at full load (another process), which the
	// pool's threads share them with; empty: none. Pool plans only.
	BusyCores []int `json:"busy_cores,omitempty"`
	// SMT is, per engine in the order of Engines, how many of its threads
	// sit on a core's second (or later) hardware thread beside another
	// thread of the pool (see Plan.Siblings); nil: as the OS places them,
	// on idle cores first (Engine.DefaultSiblings). Pool plans only.
	SMT []int `json:"smt,omitempty"`
	// Allowed is, per engine in the order of Engines, the cores (and ways
	// of each) the pool's threads may run on, where a --cpu-mask or the
	// process's CPU set allows fewer than the engine has; nil: all of
	// them (PoolEngine). Pool plans only.
	Allowed []CoreSet `json:"allowed,omitempty"`
}

// NewNative is the plan that runs everything on engine main.
func NewNative(main string, threads, poll int) Plan {
	return Plan{Mode: Native, Engines: []string{main}, Fracs: []float64{1}, Threads: []int{threads}, Poll: poll}
}

// NewPlan is the plan that runs mode over engines, main first, each with
// its threads and its share of the split ops (SharesOf makes the shares
// from the helpers'). NewPlan(TokenSplit, []string{"big", "little"},
// []int{4, 4}, SharesOf(0.12), 50) is the seed's split.
func NewPlan(mode Mode, engines []string, threads []int, shares []float64, poll int) Plan {
	return Plan{Mode: mode, Engines: engines, Fracs: shares, Threads: threads, Poll: poll}
}

// SharesOf is the shares of a split whose engines after the first take
// helpers, in order, and the first what they leave: SharesOf(0.12) is
// [0.88 0.12], SharesOf(0.1, 0.3) is [0.6 0.1 0.3].
func SharesOf(helpers ...float64) []float64 {
	main := 1.0
	for _, h := range helpers {
		main -= h
	}
	return append([]float64{main}, helpers...)
}

// CheckShape checks what a plan must hold on any SoC: a known mode, one
// to MaxEngines distinct engines, a thread count of 1 to MaxPoolThreads
// for each, a poll of 0 to 100 and, for a split, one share in [0,1] per
// engine summing to 1 (a native plan may leave its shares out). A
// measurement's plan is checked so where it is read; Validate adds the
// SoC's engines and cores.
func (p Plan) CheckShape() error {
	if !p.Mode.Known() {
		return fmt.Errorf("plan: unknown split mode %q (want %s)", p.Mode, ModeList(modes))
	}
	if len(p.Engines) == 0 || len(p.Engines) > MaxEngines {
		return fmt.Errorf("plan: %d engines, want 1 to %d", len(p.Engines), MaxEngines)
	}
	if len(p.Threads) != len(p.Engines) {
		return fmt.Errorf("plan has %d engines but %d thread counts", len(p.Engines), len(p.Threads))
	}
	seen := map[string]bool{}
	for i, e := range p.Engines {
		if strings.TrimSpace(e) == "" || seen[e] {
			return fmt.Errorf("plan: engine %d is %q: want a name, once", i, e)
		}
		seen[e] = true
		if n := p.Threads[i]; n < 1 || n > MaxPoolThreads {
			return fmt.Errorf("plan: engine %q: %d threads is outside [1, %d]", e, n, MaxPoolThreads)
		}
	}
	if p.Poll < 0 || p.Poll > 100 {
		return fmt.Errorf("plan: poll %d is outside [0, 100]", p.Poll)
	}
	if p.BusyCores != nil && len(p.BusyCores) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d busy-core counts", len(p.Engines), len(p.BusyCores))
	}
	for _, b := range p.BusyCores {
		if b < 0 || b > MaxPoolThreads {
			return fmt.Errorf("plan: %d busy cores is outside [0, %d]", b, MaxPoolThreads)
		}
	}
	if p.Mode == PoolPlan || p.Mode == Native && len(p.Fracs) == 0 {
		return nil
	}
	if len(p.Fracs) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d fractions", len(p.Engines), len(p.Fracs))
	}
	sum := 0.0
	for i, f := range p.Fracs {
		if !finite(f) || f < 0 || f > 1 {
			return fmt.Errorf("plan: engine %q: fraction %g outside [0,1]", p.Engines[i], f)
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-6 {
		return fmt.Errorf("plan: fractions sum to %g, not 1", sum)
	}
	return nil
}

// Validate checks the plan against a SoC.
func (p Plan) Validate(s *SoC) error {
	switch {
	case p.Mode == PoolPlan:
		return p.validatePool(s)
	case !p.Mode.Known():
		return fmt.Errorf("plan: unknown split mode %q (want %s)", p.Mode, ModeList(modes))
	default:
		if p.BusyCores != nil {
			return fmt.Errorf("plan: busy cores are for a pool plan, not %s", p.Mode)
		}
		if p.SMT != nil || p.Allowed != nil {
			return fmt.Errorf("plan: threads on SMT siblings and allowed cores are for a pool plan, not %s", p.Mode)
		}
	}
	engines, err := p.engines(s)
	if err != nil {
		return err
	}
	for i, e := range engines {
		name := e.Name
		if p.Threads[i] < 1 || p.Threads[i] > e.Cores {
			return fmt.Errorf("plan: engine %q: %d threads, but it has %d cores", name, p.Threads[i], e.Cores)
		}
		if i == 0 && e.IsAccelerator() {
			return fmt.Errorf("plan: engine %q (%s) cannot be the main engine: that runs every op that is not split, and it runs only %s",
				name, e.Kind, enum.List(e.Ops))
		}
	}
	if p.Mode == Native {
		return nil
	}
	if len(p.Fracs) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d fractions", len(p.Engines), len(p.Fracs))
	}
	sum := 0.0
	for i, f := range p.Fracs {
		if !finite(f) || f < 0 || f > 1 {
			return fmt.Errorf("plan: engine %q: fraction %g outside [0,1]", p.Engines[i], f)
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("plan: fractions sum to %g, not 1", sum)
	}
	for i, f := range p.Fracs {
		e, _, _ := s.Engine(p.Engines[i])
		if f == 0 || e.CanSplit(p.Mode) {
			continue
		}
		if !e.CanRun(ExpertMatmul) {
			return fmt.Errorf("plan: engine %q cannot run %s (it runs only %s) but has fraction %g of it", p.Engines[i], ExpertMatmul, enum.List(e.Ops), f)
		}
		return fmt.Errorf("plan: engine %q cannot take a share of %s in %s split mode (it splits by %s only)", p.Engines[i], ExpertMatmul, p.Mode, enum.List(e.SplitModes))
	}
	return nil
}

// String is a short label: "token f=0.12 poll=50 t=4+4", "pool poll=50
// t=4+4 busy=0+1".
func (p Plan) String() string {
	if p.Mode == Native {
		return fmt.Sprintf("native poll=%d t=%d", p.Poll, p.Threads[0])
	}
	if p.Mode == PoolPlan {
		return p.poolString()
	}
	s := fmt.Sprintf("%s f=", p.Mode)
	for i := 1; i < len(p.Fracs); i++ {
		if i > 1 {
			s += "/"
		}
		s += fmt.Sprintf("%.3g", p.Fracs[i])
	}
	s += fmt.Sprintf(" poll=%d t=", p.Poll)
	for i, t := range p.Threads {
		if i > 0 {
			s += "+"
		}
		s += fmt.Sprint(t)
	}
	return s
}

// engines checks what every plan needs (engines, one thread count each,
// a poll in 0..100, each engine on s and listed once) and returns the
// engines in the plan's order.
func (p Plan) engines(s *SoC) ([]*Engine, error) {
	if len(p.Engines) == 0 {
		return nil, fmt.Errorf("plan: no engines")
	}
	if len(p.Threads) != len(p.Engines) {
		return nil, fmt.Errorf("plan: %d engines but %d thread counts", len(p.Engines), len(p.Threads))
	}
	if p.Poll < 0 || p.Poll > 100 {
		return nil, fmt.Errorf("plan: poll %d outside 0..100", p.Poll)
	}
	seen := map[string]bool{}
	out := make([]*Engine, len(p.Engines))
	for i, name := range p.Engines {
		e, _, err := s.Engine(name)
		if err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		if seen[name] {
			return nil, fmt.Errorf("plan: engine %q listed twice", name)
		}
		seen[name] = true
		out[i] = e
	}
	return out, nil
}

// Shares is each engine's share as tables print it, rounded to four places
// and shown to three: "big 0.889 + little 0.111".
func (p Plan) Shares() string {
	parts := make([]string, len(p.Engines))
	for i, e := range p.Engines {
		f := 0.0
		if i < len(p.Fracs) {
			f = math.Round(p.Fracs[i]*1e4) / 1e4
		}
		parts[i] = fmt.Sprintf("%s %.3f", e, f)
	}
	return strings.Join(parts, " + ")
}
