package busy

import (
	"testing"
	"time"
)

// TestPolicyBudget: re-runs may take Grace plus BudgetShare of the time
// the first attempts took, waits included.
func TestPolicyBudget(t *testing.T) {
	p := &Policy{Grace: time.Second, BudgetShare: 0.5}
	p.measured = 10 * time.Second
	if !p.allows(6 * time.Second) {
		t.Error("6 s of re-runs in a budget of 1 s + half of 10 s refused")
	}
	p.rerun = 3 * time.Second
	if p.allows(4 * time.Second) {
		t.Error("7 s of re-runs in a budget of 6 s allowed")
	}
	if (&Policy{}).allows(DefaultGrace + time.Second) {
		t.Error("the default budget allows more than its grace before anything was measured")
	}
}

// TestRunWithoutProcfs: without procfs the attempt runs once and no
// interference is recorded.
func TestRunWithoutProcfs(t *testing.T) {
	n := 0
	got, in, err := Run(&Policy{Root: t.TempDir()}, nil, func(w *Watch) (int, float64, error) {
		n++
		w.Follow(1)
		return 7, -1, nil
	})
	if err != nil || in != nil || got != 7 || n != 1 {
		t.Errorf("got %d, %v, %v after %d attempts", got, in, err, n)
	}
}
