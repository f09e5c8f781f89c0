package calibrate

import (
	"slices"
	"sync"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/model"
)

// BenchmarkEnginesAtOnce tells what two engines share when they run at
// once: on the first two CPUs this process may use, one engine each, it
// times the dispatcher's native run of each engine alone, then both at
// once as two independent runs (no split, so no handoff between them), on
// the default calibration workload at each of the grid's shapes; and the
// stream microbenchmark alone and at once. An engine that keeps most of
// its alone speed while the other streams too shares little DRAM
// bandwidth; what a split run loses beyond that is the split's own cost.
// It reports, per shape, the engines' speed at once over alone (at_once
// metrics) and the streams' GB/s. docs/busy-machine.md quotes it; run it
// on a quiet machine:
//
//	go test ./calibrate -run '^$' -bench EnginesAtOnce -benchtime 1x
func BenchmarkEnginesAtOnce(b *testing.B) {
	cpus, w := liveBench(b, 1536<<20)
	gemv, low, high := Shapes(w)
	shapes := []struct {
		name string
		run  *model.Run
	}{{"token", TokenShape(w)}, {"gemv", gemv}, {"low", low}, {"own", nil}, {"high", high}}
	// Weights of their own for each engine, as two programs would have.
	models := make([]*dispatch.Model, 2)
	for i := range models {
		var err error
		if models[i], err = dispatch.NewModel(w, uint64(i+1)); err != nil {
			b.Fatal(err)
		}
	}
	names := []string{"a", "b"}
	run := func(i int, r *model.Run) float64 {
		tps, err := nativeTPS(models[i], names[i], 1, 50, []int{cpus[i]}, r, 5, 1)
		if err != nil {
			b.Error(err) // from the runs' goroutines too: b.Fatal may not be called there
			return 0
		}
		slices.Sort(tps)
		return tps[len(tps)/2]
	}
	for range b.N {
		for _, sh := range shapes {
			if sh.run == nil && sh.name != "own" {
				continue
			}
			alone := []float64{run(0, sh.run), run(1, sh.run)}
			both := make([]float64, 2)
			var wg sync.WaitGroup
			for i := range both {
				wg.Add(1)
				go func() { defer wg.Done(); both[i] = run(i, sh.run) }()
			}
			wg.Wait()
			for i := range both {
				b.Logf("%s: cpu%d alone %.1f t/s, at once %.1f (%.3f)", sh.name, cpus[i], alone[i], both[i], both[i]/alone[i])
				b.ReportMetric(both[i]/alone[i], sh.name+"_at_once_cpu"+string(rune('0'+i)))
			}
		}
		ps := &probe.Settings{MinRuns: 5, MaxRuns: 100, Budget: 2e9, MaxWorkingSetBytes: 1 << 30}
		ws := probe.DefaultWorkingSet(0)
		s0, err0 := probe.StreamRead(cpus[:1], 1, ws, ps)
		s1, err1 := probe.StreamRead(cpus[1:2], 1, ws, ps)
		c, err2 := probe.StreamReadTogether(cpus[:2], ws, ps)
		if err0 != nil || err1 != nil || err2 != nil {
			b.Fatal(err0, err1, err2)
		}
		b.Logf("stream: alone %.2f + %.2f = %.2f GB/s; at once %.2f GB/s",
			s0.Median, s1.Median, s0.Median+s1.Median, c.Median)
		b.ReportMetric(s0.Median+s1.Median, "stream_alone_sum_GB/s")
		b.ReportMetric(c.Median, "stream_at_once_GB/s")
	}
}
