package calibrate

import (
	"math"
	"testing"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
)

func TestLLCKnee(t *testing.T) {
	const mb = 1 << 20
	sizes := []int64{8 * mb, 16 * mb, 32 * mb, 64 * mb, 128 * mb, 256 * mb, 512 * mb}
	for _, tc := range []struct {
		name     string
		gbs      []float64
		ok       bool
		wantGBs  float64
		wantSize float64
	}{
		// This VM's shape (likwid-bench load, one thread): the cache holds
		// between 64 and 128 MB.
		{"VM", []float64{28, 27, 26.6, 25.1, 13.5, 10.1, 12.8}, true, 28, 64 * mb * math.Pow(2, (25.1-20.4)/(25.1-13.5))},
		{"no cache", []float64{12, 12, 11.9, 11.8, 11.7, 11.6, 11.5}, false, 12, 0},
		{"all of it holds", []float64{30, 30, 30, 30, 30, 29, 14}, true, 30, 256 * mb * math.Pow(2, (29-22)/(29-14.0))},
	} {
		l := &llcSweep{sizes: sizes, gbs: tc.gbs}
		g, b, ok := l.knee()
		if ok != tc.ok || g != tc.wantGBs || math.Abs(b-tc.wantSize) > 1e-6*tc.wantSize+1 {
			t.Errorf("%s: knee %g GB/s at %.4g MB (%v), want %g at %.4g (%v)", tc.name, g, b/mb, ok, tc.wantGBs, tc.wantSize/mb, tc.ok)
		}
	}
	// The sweep starts past the cluster's L2 caches and ends at the cache.
	if got := llcSizes(480*mb, 4*mb, 1<<30); got[0] != 15*mb || got[len(got)-1] != 480*mb || len(got) != 6 {
		t.Errorf("sizes %v", got)
	}
	if got := llcSizes(3*mb, 2*mb, 0); len(got) != 0 {
		t.Errorf("a 3 MiB cache over 2 MiB of L2: sizes %v, want none", got)
	}
	if got := llcSizes(480*mb, 4*mb, 64*mb); len(got) != 3 {
		t.Errorf("capped at 64 MiB: sizes %v, want 15, 30 and 60 MiB", got)
	}
}

// TestPriorKeepsWeightsInCache: measured, the shared cache's read rate and
// held share go into the prior; unmeasured, the engine keeps nothing
// between graphs.
func TestPriorKeepsWeightsInCache(t *testing.T) {
	ms := []measure.Measurement{
		{ID: "a", Param: "engines.big.llc_bandwidth_gb_s", Median: 28, CV: 0.01, Status: "ok"},
		{ID: "b", Param: "engines.big.cache_usable_frac", Median: 0.15, CV: 0.01, Status: "ok"},
	}
	s := Prior("box", twoEngines(), ms, nil)
	if b, l := s.Engines[0], s.Engines[1]; b.LLCBandwidthGBs != 28 || b.CacheUsableFrac != 0.15 || l.LLCBandwidthGBs != 0 || l.CacheUsableFrac != 0.5 {
		t.Errorf("big %g GB/s %g, little %g GB/s %g", b.LLCBandwidthGBs, b.CacheUsableFrac, l.LLCBandwidthGBs, l.CacheUsableFrac)
	}
}

// TestLLCStepsNeedTheWholeCache: the sweep runs only when the
// microbenchmarks may stream the whole shared cache.
func TestLLCStepsNeedTheWholeCache(t *testing.T) {
	c := topology.Cluster{Name: "big", CPUs: []int{1}, L2KiBPerCore: 2048, SharedCacheKiB: 480 << 10}
	if got := llcSteps(c, &probe.Settings{MaxWorkingSetBytes: 64 << 20}); len(got) != 0 {
		t.Errorf("working sets capped at 64 MiB: %d steps, want none", len(got))
	}
	got := llcSteps(c, &probe.Settings{MaxWorkingSetBytes: 1 << 30})
	if len(got) != 2 || got[0].ID == got[1].ID {
		t.Errorf("%d steps, want the read rate and the share held", len(got))
	}
	c.SharedCacheKiB = 0
	if got := llcSteps(c, &probe.Settings{}); len(got) != 0 {
		t.Errorf("no shared cache: %d steps", len(got))
	}
}
