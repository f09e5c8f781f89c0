package calibrate

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
)

// llcSweep is one cluster's read bandwidth over working sets from a
// sixty-fourth of its shared cache to the whole of it: from it, what the
// cache holds in practice (other tenants and the replacement policy take
// their share) and how fast the cluster reads it.
type llcSweep struct {
	sizes []int64   // working sets, bytes
	gbs   []float64 // median GB/s at each
	cv    float64   // the largest CV among them
	err   error
	done  bool
}

// llcSizes are the sweep's working sets for a shared cache of cache bytes,
// from cache/64 up to the cache (at most max, when positive), those past
// twice the cluster's own L2 caches.
func llcSizes(cache, l2, max int64) []int64 {
	var out []int64
	for ws := cache / 64; ws <= cache && (max <= 0 || ws <= max); ws *= 2 {
		if ws > 2*l2 {
			out = append(out, ws)
		}
	}
	return out
}

// llcSizesOf is llcSizes for cluster c under the microbenchmarks' settings.
func llcSizesOf(c topology.Cluster, ps *probe.Settings) []int64 {
	return llcSizes(int64(c.SharedCacheKiB)*1024, int64(c.L2KiBPerCore)*1024*int64(len(c.CPUs)), ps.MaxWorkingSetBytes)
}

// run measures the sweep once: a later call returns the first's result.
func (l *llcSweep) run(c topology.Cluster, ps *probe.Settings) error {
	if l.done {
		return l.err
	}
	l.done = true
	l.sizes = llcSizesOf(c, ps)
	if len(l.sizes) < 3 {
		l.err = fmt.Errorf("llc: a shared cache of %d KiB leaves too few working sets past the L2 caches", c.SharedCacheKiB)
		return l.err
	}
	for _, ws := range l.sizes {
		st, err := probe.StreamRead(c.CPUs, len(c.CPUs), ws, ps)
		if err != nil {
			l.err = err
			return err
		}
		l.gbs = append(l.gbs, st.Median)
		l.cv = math.Max(l.cv, st.CV)
	}
	return nil
}

// knee is what the sweep says: the cache's read bandwidth (its smallest
// working set's) and the working set where the bandwidth falls halfway
// from that to the largest working set's, interpolated on a log scale of
// the working set; false when the bandwidth does not fall by a third (no
// cache to tell from DRAM at these sizes).
func (l *llcSweep) knee() (gbs float64, bytes float64, ok bool) {
	n := len(l.gbs)
	if n < 3 {
		return 0, 0, false
	}
	hi, lo := l.gbs[0], l.gbs[n-1]
	if lo > hi/1.5 {
		return hi, 0, false
	}
	mid := (hi + lo) / 2
	for i := 1; i < n; i++ {
		if l.gbs[i] < mid {
			a, b := l.gbs[i-1], l.gbs[i]
			f := (a - mid) / (a - b)
			return hi, float64(l.sizes[i-1]) * math.Pow(float64(l.sizes[i])/float64(l.sizes[i-1]), f), true
		}
	}
	return hi, float64(l.sizes[n-1]), true
}

// llcSteps are the two measurements of a cluster's sweep: its shared
// cache's read bandwidth (llc_bandwidth_gb_s) and the share of the cache
// that holds data in practice (cache_usable_frac). Nothing for a cluster
// whose shared cache is not known, larger than the microbenchmarks' largest
// working set, or too small for three working sets between its L2 caches
// and its size.
func llcSteps(c topology.Cluster, ps *probe.Settings) []Step {
	cache := int64(c.SharedCacheKiB) * 1024
	if cache <= 0 || (ps.MaxWorkingSetBytes > 0 && cache > ps.MaxWorkingSetBytes) || len(llcSizesOf(c, ps)) < 3 {
		return nil
	}
	p := "engines." + c.Name + "."
	tag := topology.FormatCPUList(c.CPUs)
	sw := &llcSweep{}
	measureOf := func(id, param, unit string, value func() (float64, bool)) func() (measure.Measurement, error) {
		return func() (measure.Measurement, error) {
			m := measure.Measurement{ID: id, Kind: measure.Stream, Param: param, Engine: c.Name, Unit: unit}
			if err := sw.run(c, ps); err != nil {
				return m, err
			}
			v, ok := value()
			if !ok {
				return m, fmt.Errorf("llc: read bandwidth %.3g GB/s at %d MiB and %.3g at %d MiB: no cache to tell from DRAM",
					sw.gbs[0], sw.sizes[0]>>20, sw.gbs[len(sw.gbs)-1], sw.sizes[len(sw.sizes)-1]>>20)
			}
			m.Samples, m.Median, m.CV = []float64{v}, v, sw.cv
			return m, nil
		}
	}
	reset := func() { *sw = llcSweep{} }
	return []Step{
		{cpus: c.CPUs, reset: reset, ID: "llc/bandwidth/" + c.Name + "/" + tag, Label: "shared cache read, " + c.Name,
			run: measureOf("llc/bandwidth/"+c.Name+"/"+tag, p+"llc_bandwidth_gb_s", "GB/s", func() (float64, bool) {
				g, _, ok := sw.knee()
				return g, ok
			})},
		{cpus: c.CPUs, reset: reset, ID: "llc/usable/" + c.Name + "/" + tag, Label: "shared cache held, " + c.Name,
			run: measureOf("llc/usable/"+c.Name+"/"+tag, p+"cache_usable_frac", "fraction", func() (float64, bool) {
				_, b, ok := sw.knee()
				return math.Min(1, b/float64(c.SharedCacheKiB*1024)), ok
			})},
	}
}
