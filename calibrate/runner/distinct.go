package runner

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/model"
)

// Condition says when a knob can change a run: each knob it names must
// have one of the values listed (compared without case and surrounding
// space). In a knob mapping file:
//
//	depends:
//	  MY_FORK_CHUNK: {MY_FORK_SPLIT: [1, on]}   # the chunk size matters only with the split on
//	  --my-spin: {-t: [2, 3, 4, 8]}             # and this flag only with more than one thread
type Condition map[string][]string

// holds reports whether knobs (or the mapping's defaults for what they
// leave unset) meet c. A condition on a knob that is neither set nor has a
// default cannot be judged, and holds.
func (c Condition) holds(knobs, defaults map[string]string) bool {
	for name, values := range c {
		v, ok := knobs[name]
		if !ok {
			if v, ok = defaults[name]; !ok {
				continue
			}
		}
		match := false
		for _, want := range values {
			match = match || strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(want))
		}
		if !match {
			return false
		}
	}
	return true
}

// Idle returns the knobs of p that cannot change its run, by the
// mapping's own meaning of its knobs and by its Depends:
//
//   - with the split off (the enable knob not on), the little fraction,
//     the split mode and the little thread count;
//   - in a native run of one thread (a count its knobs set), the poll
//     level: a pool of one thread never waits at a barrier;
//   - a knob whose Depends condition p does not meet.
//
// Only knobs p sets are returned, sorted.
func (m Mapping) Idle(p Point) []string {
	idle := map[string]bool{}
	add := func(ns Names) {
		for _, n := range ns {
			if _, set := p.Knobs[n]; set {
				idle[n] = true
			}
		}
	}
	// Any count tells the mode when the knobs leave the threads to the
	// record; the poll rule below takes the count from the knobs only.
	plan, err := m.Plan(p, llamabench.Record{NThreads: 1})
	native := err == nil && plan.Mode == model.Native
	if native && len(m.Enable) > 0 {
		add(m.LittleFrac)
		add(m.Split)
		add(m.LittleThreads)
	}
	if native {
		if _, _, set := m.lookup(p.Knobs, m.BigThreads); set && plan.Threads[0] == 1 {
			add(m.Poll)
		}
	}
	for name, c := range m.Depends {
		if _, set := p.Knobs[name]; set && !c.holds(p.Knobs, m.Defaults) {
			idle[name] = true
		}
	}
	out := make([]string, 0, len(idle))
	for n := range idle {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Distinct is the grid's points less those that run what an earlier point
// runs: points whose knobs differ only in knobs that cannot change the run
// (Mapping.Idle) are one, and the first is kept, with its knobs and ID as
// the grid gives them. collapsed says, for each knob that made a point
// collapse, how many points it collapsed.
//
// A mapped variable the grid leaves alone but this process exports reaches
// the command (as Run records it), so it counts.
func (c Config) Distinct() (points []Point, collapsed map[string]int) {
	m := c.Mapping
	if m.isZero() {
		m = DefaultMapping()
	}
	inherited := map[string]string{}
	for _, name := range m.EnvNames() {
		if v, ok := os.LookupEnv(name); ok {
			inherited[name] = v
		}
	}
	seen := map[string]bool{}
	collapsed = map[string]int{}
	for _, p := range c.Grid.Points() {
		eff := p
		if len(inherited) > 0 {
			eff.Knobs = map[string]string{}
			for k, v := range inherited {
				eff.Knobs[k] = v
			}
			for k, v := range p.Knobs {
				eff.Knobs[k] = v
			}
		}
		idle := m.Idle(eff)
		key := canonical(p.Knobs, idle)
		if seen[key] {
			for _, n := range idle {
				collapsed[n]++
			}
			continue
		}
		seen[key] = true
		points = append(points, p)
	}
	return points, collapsed
}

// canonical is knobs, less those in idle, as one sorted string.
func canonical(knobs map[string]string, idle []string) string {
	skip := map[string]bool{}
	for _, n := range idle {
		skip[n] = true
	}
	names := make([]string, 0, len(knobs))
	for k := range knobs {
		if !skip[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%s\x00", strconv.Quote(k), strconv.Quote(knobs[k]))
	}
	return b.String()
}
