package predict

import (
	"errors"
	"testing"
)

// TestThreads: on rk3588 for qwen3.5-35b-a3b, stock llama.cpp's best
// prefill pool is the 4 big cores, and every core (-t 8) loses prefill;
// each row's pool is what it says.
func TestThreads(t *testing.T) {
	s, w := load(t, "rk3588")
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if th.Schema != ThreadsSchema || th.TG != "tg16" || len(th.Rows) != 4+4+4+2 {
		t.Fatalf("schema %q tg %q, %d rows", th.Schema, th.TG, len(th.Rows))
	}
	if b := th.BestPP; b.Mask != "big" || b.Threads != 4 {
		t.Errorf("best prefill %s -t %d, want big -t 4", b.Mask, b.Threads)
	}
	if a := th.AllCores; a.Threads != 8 || !(a.PPTPS < th.BestPP.PPTPS) {
		t.Errorf("every core: -t %d at %.2f t/s, best %.2f", a.Threads, a.PPTPS, th.BestPP.PPTPS)
	}
	for _, r := range th.Rows[:12] {
		if r.Threads != r.Plan.PoolThreads() || !(r.PPTPS > 0 && r.TGTPS > 0) {
			t.Errorf("row %+v", r)
		}
	}
	var fe *FieldError
	if _, err := Threads(ThreadsRequest{SoC: s, Workload: w, Poll: 101}); !errors.As(err, &fe) || fe.Field != "poll" {
		t.Errorf("poll 101: %v", err)
	}
}
