package calibrate

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// fitSlots bounds the recorded refits that run at once across this
// package's parallel tests to two, the build machine's CPUs: a fit keeps
// about one CPU busy (its predictions run on all of them, its steps do
// not), so two at a time fill the machine where one by one left half of
// it idle.
var fitSlots = make(chan struct{}, 2)

// concurrently calls f(0), ..., f(n-1), holding one of fitSlots for each
// call, and returns once all have returned. f must not call t.Fatal (it
// runs on its own goroutine): it stores its result by index, and the test
// reads the results, logs and asserts in index order, so that its output
// does not depend on which fit finished first.
func concurrently(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fitSlots <- struct{}{}
			defer func() { <-fitSlots }()
			f(i)
		}()
	}
	wg.Wait()
}

// refit is one recorded refit's results.
type refit struct {
	v   *fit.Validation
	r   *fit.Result
	err error
}

// params returns the fit's parameters by path.
func (x refit) params() map[string]fit.ParamFit {
	got := map[string]fit.ParamFit{}
	if x.r != nil {
		for _, p := range x.r.Params {
			got[p.Path] = p
		}
	}
	return got
}

// holdoutAll refits each prior on its records as calibrate does (the
// held-out grid held out), two at a time, and returns the results in
// order.
func holdoutAll(priors []*model.SoC, records [][]measure.Measurement) []refit {
	out := make([]refit, len(priors))
	concurrently(len(priors), func(i int) {
		out[i].v, out[i].r, out[i].err = fit.Holdout(priors[i], records[i], []string{"set=" + HeldOutGrid}, fit.Options{})
	})
	return out
}

// quickRefits memoizes quickHoldouts' refits for the life of the test
// binary, by file and the fit's cap starts.
var quickRefits sync.Map // string -> *quickRefit

type quickRefit struct {
	once sync.Once
	refit
}

// quickHoldouts refits recorded one-cluster quick calibrations of the
// 2-vCPU build machine as calibrate did (prior from their own
// microbenchmarks, the held-out grid held out), two at a time, and returns
// the results in order. A file refitted before with the same
// fit.CapStartShares and fit.CapStartGain is not refitted: tests that
// score the same recorded tries (each its own way) share one fit each.
func quickHoldouts(t *testing.T, paths []string) []refit {
	t.Helper()
	return quickHoldoutsOn(t, topology.Cluster{Name: "big", CPUs: []int{0, 1}}, paths)
}

// quickHoldoutsOn is quickHoldouts on cluster c: the cluster a host's
// tries were calibrated on, where its caches set the prior (zen4Cluster).
// The memo is by cluster too.
func quickHoldoutsOn(t *testing.T, c topology.Cluster, paths []string) []refit {
	t.Helper()
	engines := NewEngines([]topology.Cluster{c})
	entries := make([]*quickRefit, len(paths))
	priors, records := make([]*model.SoC, len(paths)), make([][]measure.Measurement, len(paths))
	for i, path := range paths {
		e, _ := quickRefits.LoadOrStore(fmt.Sprint(path, c, fit.CapStartShares, fit.CapStartGain), &quickRefit{})
		entries[i] = e.(*quickRefit)
		ms, w := recordedQuick(t, path)
		priors[i], records[i] = Prior("quick-vm", engines, ms, w), ms
	}
	concurrently(len(paths), func(i int) {
		entries[i].once.Do(func() {
			entries[i].v, entries[i].r, entries[i].err = fit.Holdout(priors[i], records[i], []string{"set=" + HeldOutGrid}, fit.Options{})
		})
	})
	out := make([]refit, len(paths))
	for i, e := range entries {
		out[i] = e.refit
	}
	return out
}
