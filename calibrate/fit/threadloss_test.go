package fit

import (
	"slices"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// The thread-scaling loss is free only where the runs use an engine at two
// thread counts or more; the fit's second start raises it to LossStart.
func TestThreadSpread(t *testing.T) {
	run := func(threads ...int) measure.Measurement {
		return measure.Measurement{Plan: &model.Plan{Mode: model.Native, Engines: []string{"big"}, Threads: threads}}
	}
	for _, tc := range []struct {
		name string
		obs  []measure.Measurement
		want bool
	}{
		{"none", nil, false},
		{"one count", []measure.Measurement{run(2), run(2)}, false},
		{"one and two", []measure.Measurement{run(1), run(2)}, true},
		{"two and four", []measure.Measurement{run(2), run(4)}, true},
		{"no plan", []measure.Measurement{{}, run(2)}, false},
	} {
		if got := threadSpread("big", tc.obs); got != tc.want {
			t.Errorf("%s: threadSpread = %v, want %v", tc.name, got, tc.want)
		}
		if got := threadSpread("little", tc.obs); got {
			t.Errorf("%s: an engine no run uses has a spread", tc.name)
		}
	}
	free := []string{"engines.big.kernel_ops_per_cycle.q8", "engines.big.thread_scaling_loss", "engines.little.thread_scaling_loss"}
	x1, ok := lossStart(free, []float64{90, 0.01, 0.3})
	if !ok || !slices.Equal(x1, []float64{90, LossStart, 0.3}) {
		t.Errorf("lossStart = %v %v, want [90 %g 0.3] true", x1, ok, LossStart)
	}
	if _, ok := lossStart(free[:1], []float64{90}); ok {
		t.Error("lossStart without a loss to start from says it has one")
	}
	if !IsShare("engines.big.thread_scaling_loss") {
		t.Error("the loss is judged as a share")
	}
}
