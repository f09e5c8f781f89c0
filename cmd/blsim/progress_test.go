package main

import (
	"strings"
	"testing"
)

// TestPredictProgress: a prediction of many ubatches shows its progress
// on stderr, step by step; a short one prints nothing there.
func TestPredictProgress(t *testing.T) {
	_, errs, code := runCLI(t, "predict", "--prompt", "128", "--ubatch", "2", "--draws", "2", "--split", "token")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "predicting 64 ubatches") || !strings.Contains(errs, "(7/8)") {
		t.Errorf("stderr does not show the progress of the 8 steps:\n%q", errs)
	}
	if _, errs, _ := runCLI(t, "predict", "--draws", "2"); errs != "" {
		t.Errorf("a one-ubatch prediction wrote to stderr: %q", errs)
	}
}
