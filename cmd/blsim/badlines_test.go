package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneBadLinePolicy: fit, validate, plot and report read a measurements
// file by one rule. A file with one bad line (what a crash leaves) is used,
// with a warning naming the line; one with more bad lines than a tenth is
// refused by each with the same one-line reason.
func TestOneBadLinePolicy(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	seed := string(seedFile(t))
	crashed := filepath.Join(dir, "crashed.jsonl")
	broken := filepath.Join(dir, "broken.jsonl")
	os.WriteFile(crashed, []byte(seed+`{"schema":"blsim/measurement/v1","id":"half`), 0o644)
	os.WriteFile(broken, []byte(seed+"garbage\nmore garbage\n"), 0o644)
	commands := func(path string) [][]string {
		return [][]string{
			{"fit", "--soc", "rk3588", "--measurements", path, "-o", filepath.Join(dir, "fitted.yaml"), "--accept-poor-fit"},
			{"validate", "--soc", "rk3588", "--measurements", path},
			{"plot", "parity", "--soc", "rk3588", "--measurements", path, "-o", filepath.Join(dir, "parity.png")},
			{"report", "--soc", "rk3588", "--measurements", path, "-o", filepath.Join(dir, "report")},
		}
	}
	for _, args := range commands(crashed) {
		_, stderr, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(stderr, "skipped "+crashed+":3:") {
			t.Errorf("%s on the crashed file: exit %d, stderr %q", args[0], code, stderr)
		}
		os.RemoveAll(filepath.Join(dir, "report"))
	}
	for _, args := range commands(broken) {
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, "2 of its 4 lines are bad, more than a tenth (first: "+broken+":3:") {
			t.Errorf("%s on the broken file: exit %d, stderr %q", args[0], code, stderr)
		}
	}
}

// seedFile is the seed's figures as the measurements file blsim embeds
// (presets/measurements/seed-rk3588.jsonl).
func seedFile(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "presets", "measurements", "seed-rk3588.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
