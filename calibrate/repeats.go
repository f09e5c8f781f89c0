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
	Min, Max int
	// PoolMax, when above Max, is the most repeats of a run whose plan
	// runs more than one thread: a pool that waits at barriers, whose
	// repeats spread most.
	PoolMax    int
	TargetPct  float64
	ExtraShare float64

	base, extra time.Duration
}

// NewRepeats is the policy of s: s.Repeats (2 when 0) at least; when not
// s.FixedRepeats, up to three times as many, for a confidence interval of
// ±2% (±3% when Quick), within as much extra time again as the first
// repeats took. When Quick (and not FixedRepeats), a run of a pool of
// more than one thread takes up to QuickPoolRepeats, within
// QuickExtraShare times the first repeats' time.
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
		if s.Quick {
			r.PoolMax, r.ExtraShare = max(QuickPoolRepeats, r.Max), QuickExtraShare
		}
	}
	return r
}

// QuickPoolRepeats is the most repeats a quick calibration's run of a
// pool of more than one thread takes. On the 2-vCPU build machine a
// repeat of such a run spread by 8.3% (median CV over the 110 two-thread
// runs of ten quiet quick calibrations; 2.3% over the one-thread runs),
// so a median of 6 repeats, the most before, was unsure by about 4%, and
// the quick grid's held-out score, which compares such medians, followed
// that noise (docs/busy-machine.md). A median of 20 is within about 2.3%
// (1.25 × 8.3% / √20).
const QuickPoolRepeats = 20

// QuickExtraShare is how much time, as a multiple of the first repeats'
// time of every run, a quick calibration's extra repeats may take: a
// two-thread run of the quick grid going from 2 repeats to
// QuickPoolRepeats takes about that much more (its warm-up and 2 first
// repeats against 18 more).
const QuickExtraShare = 4

// Run runs cfg (cfg.Repeats is replaced by r.Min), then single repeats
// without warm-up while More says so, and returns every repeat's samples
// in one Result.
func (r *Repeats) Run(m *dispatch.Model, cfg dispatch.Config) (dispatch.Result, error) {
	cfg.Repeats = r.Min
	most := r.Max
	if threads := sum(cfg.Plan.Threads); threads > 1 {
		most = max(most, r.PoolMax)
	}
	t0 := time.Now()
	res, err := m.Run(cfg)
	r.base += time.Since(t0)
	for err == nil && r.more(res.TPS, most) {
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
func (r *Repeats) More(samples []float64) bool { return r.more(samples, r.Max) }

// more is More with most in place of Max.
func (r *Repeats) more(samples []float64, most int) bool {
	if len(samples) >= most || float64(r.extra) >= r.ExtraShare*float64(r.base) {
		return false
	}
	return HalfWidthPct(samples) > r.TargetPct
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
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
