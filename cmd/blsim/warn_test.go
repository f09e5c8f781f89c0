package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPredictWarnsUnusedSoCValues: a copied SoC whose peak is raised,
// whose little cluster has eight cores and whose sustained DRAM is above
// the clusters' caps gets one warning line for each on stderr, naming the
// value; the preset itself gets none.
func TestPredictWarnsUnusedSoCValues(t *testing.T) {
	y, err := os.ReadFile("../../presets/socs/rk3588.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(y)
	s = strings.Replace(s, "name: rk3588", "name: my-board", 1)
	s = strings.Replace(s, "sustained_gb_s: 21.0", "sustained_gb_s: 60.0", 1)
	s = strings.Replace(s, "peak_gb_s: 33.8", "peak_gb_s: 68", 1)
	i := strings.Index(s, "name: little")
	j := i + strings.Index(s[i:], "cores: 4")
	s = s[:j] + "cores: 8" + s[j+len("cores: 4"):]
	s = strings.Replace(s, "cpus: [0, 1, 2, 3]", "cpus: [0, 1, 2, 3, 8, 9, 10, 11]", 1)
	path := filepath.Join(t.TempDir(), "my.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"predict", "--draws", "4"}, {"plot", "split", "-o", filepath.Join(t.TempDir(), "s.png")}} {
		_, errs, code := runCLI(t, append(cmd, "--soc", path)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, code, errs)
		}
		for _, want := range []string{"dram.peak_gb_s: ", "engines.little.cores: 8 cores, but the prediction runs 4 threads",
			"dram.sustained_gb_s: 60 GB/s is above what the engines pull even together", "engines.big.bandwidth_max_gb_s"} {
			if n := strings.Count(errs, want); n != 1 {
				t.Errorf("%v: stderr has %q %d times, want once:\n%s", cmd, want, n, errs)
			}
		}
	}
	// Threads given for all eight cores: no word about them.
	_, errs, _ := runCLI(t, "predict", "--draws", "4", "--soc", path, "--engine-threads", "4,8")
	if strings.Contains(errs, "cores") {
		t.Errorf("with --engine-threads 4,8, stderr still warns about cores:\n%s", errs)
	}
	if _, errs, code := runCLI(t, "predict", "--draws", "4"); code != 0 || errs != "" {
		t.Errorf("the rk3588 preset: exit %d, stderr %q, want no warning", code, errs)
	}
}
