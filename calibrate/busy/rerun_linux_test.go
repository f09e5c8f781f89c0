package busy

import (
	"testing"
	"time"
)

// TestRunReruns: a run that shares its CPU with a busy loop is disturbed;
// the loop is stopped, the machine says it is quiet (here: the test says
// so, whatever else loads it), and the run is run again, and the least
// disturbed attempt is what is kept. Asserted is what ran, not how fast:
// other load on the machine may disturb the re-runs too, but never makes
// a more disturbed attempt the one kept.
func TestRunReruns(t *testing.T) {
	cpu, loop := busyCPU(t)
	waits := 0
	p := &Policy{Grace: time.Minute, waitQuiet: func(string, []int, time.Duration) bool { waits++; return true }}
	n := 0
	_, in, err := Run(p, []int{cpu}, func(w *Watch) (int, float64, error) {
		n++
		spinOn(t, cpu, 400*time.Millisecond)
		if n == 1 {
			_ = loop.Process.Kill()
			_ = loop.Wait()
		}
		return n, -1, nil
	})
	if err != nil || in == nil {
		t.Fatalf("err %v, interference %v", err, in)
	}
	t.Logf("%d attempts; kept: %+v", n, in)
	if n < 2 || in.Reruns != n-1 || waits != n-1 || n > DefaultMaxReruns+1 {
		t.Errorf("%d attempts, %d re-runs, %d waits: want the disturbed first attempt run again, each after a quiet moment, at most %d times",
			n, in.Reruns, waits, DefaultMaxReruns)
	}
}

// TestRunNoQuietMoment: a load that does not pause leaves no quiet moment
// to re-run in: the run is kept, flagged, without waiting longer than
// Wait.
func TestRunNoQuietMoment(t *testing.T) {
	cpu, _ := busyCPU(t)
	p := &Policy{Grace: time.Minute, Wait: 600 * time.Millisecond}
	n := 0
	t0 := time.Now()
	_, in, err := Run(p, []int{cpu}, func(w *Watch) (int, float64, error) {
		n++
		spinOn(t, cpu, 300*time.Millisecond)
		return n, -1, nil
	})
	if err != nil || in == nil {
		t.Fatalf("err %v, interference %v", err, in)
	}
	t.Logf("%d attempts in %v; kept: %+v", n, time.Since(t0), in)
	if n != 1 || !in.Disturbed || in.Reruns != 0 || in.Describe() == "" {
		t.Errorf("%d attempts, kept %+v: want one, flagged disturbed", n, in)
	}
}
