package calibrate

import (
	"math"
	"time"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/measure"
	"gonum.org/v1/gonum/stat/distuv"
)

// Repeats decides how many timed repeats a dispatcher run takes: Min, then
// one more at a time while the 95% confidence interval of the repeats'
// mean is wider than TargetPct of it, up to Max, and only while the extra
// repeats of the whole calibration have taken less than ExtraShare of the
// time the first Min of every run took. So a quiet machine spends nothing
// extra, and a noisy one spends a bounded share more where the noise is.
type Repeats struct {
	Min, Max   int
	TargetPct  float64
	ExtraShare float64

	base, extra time.Duration
}

// NewRepeats is the policy of s: s.Repeats (2 when 0) at least; when not
// s.FixedRepeats, up to three times as many, for a confidence interval of
// ±2% (±3% when Quick), within as much extra time again as the first
// repeats took.
func NewRepeats(s *Settings) *Repeats {
	n := s.Repeats
	if n == 0 {
		n = 2
	}
	r := &Repeats{Min: n, Max: n, TargetPct: 2, ExtraShare: 1}
	if s.Quick {
		r.TargetPct = 3
	}
	if !s.FixedRepeats {
		r.Max = 3 * n
	}
	return r
}

// Run runs cfg (cfg.Repeats is replaced by r.Min), then single repeats
// without warm-up while More says so, and returns every repeat's samples
// in one Result.
func (r *Repeats) Run(m *dispatch.Model, cfg dispatch.Config) (dispatch.Result, error) {
	cfg.Repeats = r.Min
	t0 := time.Now()
	res, err := m.Run(cfg)
	r.base += time.Since(t0)
	for err == nil && r.More(res.TPS) {
		cfg.Repeats, cfg.Warmup = 1, 0
		t1 := time.Now()
		more, e := m.Run(cfg)
		r.extra += time.Since(t1)
		if e != nil {
			break // the repeats already taken stand
		}
		res.TPS = append(res.TPS, more.TPS...)
		res.Samples = append(res.Samples, more.Samples...)
	}
	return res, err
}

// More reports whether a run with these samples takes another repeat: it
// has fewer than Max, the budget is not spent, and the interval is wider
// than the target (HalfWidthPct).
func (r *Repeats) More(samples []float64) bool {
	if len(samples) >= r.Max || float64(r.extra) >= r.ExtraShare*float64(r.base) {
		return false
	}
	return HalfWidthPct(samples) > r.TargetPct
}

// HalfWidthPct is the half-width of the 95% confidence interval of the
// mean of samples (Student's t), in percent of the mean; +Inf for fewer
// than two samples.
func HalfWidthPct(samples []float64) float64 {
	n := len(samples)
	if n < 2 {
		return math.Inf(1)
	}
	mean, sd := measure.MeanSD(samples)
	if mean <= 0 {
		return math.Inf(1)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return 100 * t * sd / math.Sqrt(float64(n)) / mean
}
