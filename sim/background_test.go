package sim

import (
	"testing"

	"github.com/blsim/blsim/model"
)

// TestBackgroundWork: the host's background work (handoff.background_cpus)
// on one SMT cluster of 8 cores. A pool that leaves hardware threads idle
// (-t 8, -t 12) runs as without it; -t 16 fills them, and every op of a
// generated token's graph waits for the thread a background burst holds:
// decode at 1 - b of its rate. A prompt's long ops spread the bursts over
// the 16 threads: pp512 loses about b/16. The waits are counted as
// descheduled time.
func TestBackgroundWork(t *testing.T) {
	s := smtSoC(t, true)
	w := mustWorkload(t, "llama-2-7b")
	pp := w.WithRun(model.Run{PromptTokens: 512, Ubatch: 512})
	tg := w.WithRun(model.Run{GenTokens: 16, Ubatch: 512})
	pool := func(n int) model.Plan { return model.NewPool([]string{"p"}, []int{n}, 50) }
	const b = 0.2
	bg := s.Clone()
	bg.Handoff.BackgroundCPUs = b
	for _, n := range []int{8, 12} {
		if a, c := tps(t, s, tg, pool(n)), tps(t, bg, tg, pool(n)); a != c {
			t.Errorf("tg -t %d leaves hardware threads idle: %.4f t/s with background work, %.4f without", n, c, a)
		}
	}
	tg16, tgBg := tps(t, s, tg, pool(16)), mustRun(t, bg, tg, pool(16))
	t.Logf("tg16 -t 16: %.3f t/s, with %g CPUs of background work %.3f (descheduled %.4f s)", tg16, b, tgBg.TPS, tgBg.Pool.DescheduledS)
	if r := tgBg.TPS / tg16; r < 1-b-0.03 || r > 1-b+0.03 || tgBg.Pool.DescheduledS <= 0 {
		t.Errorf("tg -t 16 with background work: %.4f of its rate, want about %g, counted as descheduled", r, 1-b)
	}
	pp16, ppBg := tps(t, s, pp, pool(16)), tps(t, bg, pp, pool(16))
	if r := ppBg / pp16; r < 1-b/16-0.01 || r >= 1 {
		t.Errorf("pp512 -t 16 with background work: %.4f of its rate, want about 1 - %g/16", r, b)
	}
}
