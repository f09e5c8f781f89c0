//go:build unix

package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridStopsOnSameFailures: a grid whose command is missing stops after
// SameFailures runs that fail the same way, says why and how many it left,
// and keeps the failures it recorded; KeepGoing runs every point; a grid
// whose first runs fail in different ways, or one of them succeeds, goes on.
func TestGridStopsOnSameFailures(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-llama-bench")
	polls := []string{"0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"}
	cfg := Config{Grid: Grid{Command: []string{missing}, Env: []Axis{{"ORK_BL_POLL", polls}}, Args: []Axis{{"-t", []string{"1", "2"}}}}}
	gr := runGrid(t, context.Background(), cfg, "", nil)
	var same *SameFailuresError
	if !errors.As(gr.err, &same) || same.Runs != SameFailures || gr.sum.Points < 2*SameFailures || same.Left != gr.sum.Points-SameFailures ||
		!strings.Contains(gr.err.Error(), "no such file") || !strings.Contains(gr.err.Error(), "--keep-going") {
		t.Fatalf("a missing command: %+v, %v", gr.sum, gr.err)
	}
	if len(gr.ms) != SameFailures || gr.sum.Failed != SameFailures {
		t.Errorf("recorded %d failures (summary %+v), want %d", len(gr.ms), gr.sum, SameFailures)
	}
	cfg.KeepGoing = true
	if all := runGrid(t, context.Background(), cfg, "", nil); all.err != nil || all.sum.Failed != gr.sum.Points {
		t.Errorf("--keep-going: %+v, %v; want all %d points run", all.sum, all.err, gr.sum.Points)
	}
	// Two points only: nothing is left to save, every run is made.
	cfg = Config{Grid: Grid{Command: []string{missing}, Env: []Axis{{"ORK_BL_POLL", []string{"0", "50"}}}}}
	if gr := runGrid(t, context.Background(), cfg, "", nil); gr.err != nil || gr.sum.Failed != 2 {
		t.Errorf("two points: %+v, %v", gr.sum, gr.err)
	}
	// A run that succeeds among the first: the grid goes on.
	bench := writeBench(t)
	t.Setenv("CALLS", filepath.Join(t.TempDir(), "calls"))
	for _, modes := range [][]string{{"exit3", "ok1", "garbage", "empty", "ok2"}, {"exit3", "garbage", "empty", "notest", "ok1"}} {
		cfg = Config{Grid: Grid{Command: []string{bench}, Env: []Axis{{"MODE", modes}}}}
		if gr := runGrid(t, context.Background(), cfg, "", nil); gr.err != nil || gr.sum.Runs != 5 {
			t.Errorf("first runs %v: %+v, %v", modes[:3], gr.sum, gr.err)
		}
	}
}
