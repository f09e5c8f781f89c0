package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plot parity and report predict the workload their measurements ran
// (here tiny-moe, from its workload_yaml), not --workload's default, and
// refuse a --workload that disagrees, in one line (issue 29: the parity
// plot was titled with the default workload while its points were
// another's).
func TestMeasurementsSetTheWorkload(t *testing.T) {
	dir := t.TempDir()
	path := tinyMoEMeasurements(t, dir)
	out := filepath.Join(dir, "parity.svg")
	if _, err := runPlot("parity", "--soc", vmPrior, "--measurements", path, "-o", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("tiny-moe")) || bytes.Contains(b, []byte("qwen3.5")) {
		t.Errorf("the parity plot does not name the measurements' workload tiny-moe alone:\n%.600s", b)
	}
	rep := filepath.Join(dir, "report")
	if _, err := runReport("--soc", vmPrior, "--measurements", path, "--draws", "4", "-o", rep); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(rep, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("tiny-moe")) || bytes.Contains(md, []byte("qwen3.5")) {
		t.Errorf("report.md does not predict tiny-moe alone:\n%.800s", md)
	}
	for _, run := range []func(...string) (string, error){
		func(a ...string) (string, error) { return runPlot(append([]string{"parity", "-o", out}, a...)...) },
		func(a ...string) (string, error) {
			return runReport(append([]string{"-o", filepath.Join(dir, "r2")}, a...)...)
		},
	} {
		_, err := run("--soc", vmPrior, "--measurements", path, "--workload", "synthetic-moe")
		if err == nil || !strings.HasPrefix(err.Error(), "--workload: ") || !strings.Contains(err.Error(), "tiny-moe") || strings.Contains(err.Error(), "\n") {
			t.Errorf("--workload synthetic-moe against tiny-moe's measurements: %v", err)
		}
	}
}
