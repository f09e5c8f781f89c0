package probe

import (
	"fmt"
	"time"
)

// Settings control how long a measurement is repeated and how big it is. The
// zero value, and a nil *Settings, mean the defaults given for each field.
type Settings struct {
	// MinRuns is the fewest samples taken before stopping; zero means 5.
	MinRuns int
	// MaxRuns is the most samples taken; zero means 200.
	MaxRuns int
	// TargetCV stops the repetition once the samples' coefficient of
	// variation is at most this; zero means 0.03.
	TargetCV float64
	// Budget stops the repetition, once MinRuns samples are in, when this
	// much time has passed since the first measured sample; zero means 2s.
	Budget time.Duration
	// Batch is how many handoffs one latency sample averages (spin
	// handoffs and barrier rounds use 32 times as many); zero means 32.
	Batch int
	// MaxWorkingSetBytes caps the default streaming working set, which is
	// four times the last-level cache; zero means 1 GiB.
	MaxWorkingSetBytes int64
}

// settings is Settings with the defaults filled in.
type settings struct {
	minRuns, maxRuns int
	targetCV         float64
	budget           time.Duration
	batch            int
	maxWS            int64
}

func (s *Settings) resolve() (settings, error) {
	r := settings{minRuns: 5, maxRuns: 200, targetCV: 0.03, budget: 2 * time.Second,
		batch: 32, maxWS: 1 << 30}
	if s == nil {
		return r, nil
	}
	switch {
	case s.MinRuns < 0:
		return r, fmt.Errorf("probe: Settings.MinRuns %d must not be negative", s.MinRuns)
	case s.MaxRuns < 0:
		return r, fmt.Errorf("probe: Settings.MaxRuns %d must not be negative", s.MaxRuns)
	case s.TargetCV < 0 || s.TargetCV >= 1:
		return r, fmt.Errorf("probe: Settings.TargetCV %g must be in [0, 1)", s.TargetCV)
	case s.Budget < 0:
		return r, fmt.Errorf("probe: Settings.Budget %v must not be negative", s.Budget)
	case s.Batch < 0:
		return r, fmt.Errorf("probe: Settings.Batch %d must not be negative", s.Batch)
	case s.MaxWorkingSetBytes < 0:
		return r, fmt.Errorf("probe: Settings.MaxWorkingSetBytes %d must not be negative", s.MaxWorkingSetBytes)
	}
	if s.MinRuns > 0 {
		r.minRuns = s.MinRuns
	}
	if s.MaxRuns > 0 {
		r.maxRuns = s.MaxRuns
	}
	if s.TargetCV > 0 {
		r.targetCV = s.TargetCV
	}
	if s.Budget > 0 {
		r.budget = s.Budget
	}
	if s.Batch > 0 {
		r.batch = s.Batch
	}
	if s.MaxWorkingSetBytes > 0 {
		r.maxWS = s.MaxWorkingSetBytes
	}
	if r.minRuns > r.maxRuns {
		return r, fmt.Errorf("probe: Settings.MinRuns %d exceeds MaxRuns %d", r.minRuns, r.maxRuns)
	}
	return r, nil
}
