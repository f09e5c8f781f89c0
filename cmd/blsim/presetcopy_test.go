package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPresetCopyIsThePreset: a preset copied unchanged with socs show
// behaves as the preset: no peak_gb_s warning on every run, and plot
// split keeps the seed's measured points; an edited copy warns.
func TestPresetCopyIsThePreset(t *testing.T) {
	dir := t.TempDir()
	data, errs, code := runCLI(t, "socs", "show", "rk3588")
	if code != 0 {
		t.Fatalf("socs show: %s", errs)
	}
	copyPath, edited := filepath.Join(dir, "mine.yaml"), filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(copyPath, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte(strings.Replace(data, "peak_gb_s: 33.8", "peak_gb_s: 40", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "predict", "--soc", copyPath, "--draws", "2"); code != 0 || strings.Contains(errs, "peak_gb_s") {
		t.Errorf("an unchanged copy: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := runCLI(t, "predict", "--soc", edited, "--draws", "2"); code != 0 || !strings.Contains(errs, "dram.peak_gb_s: 40 GB/s does not enter the prediction") {
		t.Errorf("an edited copy: exit %d, stderr %q; want the peak_gb_s warning", code, errs)
	}
	svg := filepath.Join(dir, "split.svg")
	if _, errs, code := runCLI(t, "plot", "split", "--soc", copyPath, "--draws", "2", "-o", svg); code != 0 {
		t.Fatalf("plot split: %s", errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "measured native") {
		t.Errorf("plot split of an unchanged copy lost the seed's measured points (%v)", err)
	}
}
