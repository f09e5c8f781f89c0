package main

// Replays of issue 31, cases 1-3, 12, 13 and 15: crashes, outputs over
// inputs, counts without a limit, and measurement files poisoned.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// Case 1: a 71-byte GGUF named shard 1 of 2 whose split.no says 2 panicked
// every reader (index out of range); it is a one-line error naming the key.
func TestReplaySplitNoPastCount(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "m-00001-of-00002.gguf")
	if err := os.WriteFile(shard, ggufHeader(ggufKV{"split.count", uint16(2)}, ggufKV{"split.no", uint16(2)}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"predict", "--workload", shard},
		{"plot", "timeline", "--workload", shard, "-o", filepath.Join(dir, "t.png")},
		{"report", "--workload", shard, "-o", filepath.Join(dir, "r")},
		{"workloads", "from-gguf", shard},
		{"workloads", "show", "--gguf", shard},
	} {
		_, stderr, code := runCLI(t, args...)
		oneLine(t, code, stderr, "split.no")
	}
}

// Case 2: no output path may be any input the command reads, whatever flag
// named it: --measurements over --workload, --grid, --knobs or a --gguf
// model; calibrate -o over --workload or --grid; from-gguf -o over the
// model's other shard; --measurements over the model the --bench command
// names. Each is refused before anything runs, and the input is intact.
func TestReplayOutputOverInput(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, "")
	w, wtext := tinyWorkload(t, dir)
	gridText := "command: " + bench + " -p 64 -n 0\nargs: {-t: 1}\n"
	grid := put(t, dir, "grid.yaml", gridText)
	knobsText := "poll: [MY_POLL]\n"
	knobs := put(t, dir, "knobs.yaml", knobsText)
	gg, err := os.ReadFile(filepath.Join("..", "..", "gguf", "testdata", "qwen3moe.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	model := put(t, dir, "model.gguf", string(gg))
	for _, tc := range []struct {
		name   string
		args   []string
		victim string
		text   string
		flag   string
	}{
		{"measurements over the workload", []string{"calibrate", "--bench", bench + " -p 64 -n 0", "--workload", w, "--no-fit", "--measurements", w, "--arg", "-t=1"}, w, wtext, "--workload"},
		{"measurements over the grid", []string{"calibrate", "--grid", grid, "--workload", w, "--no-fit", "--measurements", grid}, grid, gridText, "--grid"},
		{"measurements over the knobs", []string{"calibrate", "--bench", bench, "--knobs", knobs, "--workload", w, "--no-fit", "--measurements", knobs}, knobs, knobsText, "--knobs"},
		{"measurements over the model", []string{"calibrate", "--bench", bench, "--gguf", model, "--no-fit", "--measurements", model}, model, string(gg), "--gguf"},
		{"measurements over the benchmark's model", []string{"calibrate", "--bench", bench + " -m " + model, "--workload", w, "--no-fit", "--measurements", model}, model, string(gg), "--bench"},
		{"profile over the workload", []string{"calibrate", "--bench", bench, "--workload", w, "--soc", "rk3588", "--measurements", filepath.Join(dir, "m.jsonl"), "-o", w}, w, wtext, "--workload"},
		{"profile over the grid", []string{"calibrate", "--grid", grid, "--workload", w, "--soc", "rk3588", "--measurements", filepath.Join(dir, "m2.jsonl"), "-o", grid}, grid, gridText, "--grid"},
		{"profile over the measurements", []string{"calibrate", "--bench", bench, "--workload", w, "--soc", "rk3588", "--measurements", filepath.Join(dir, "m3.jsonl"), "-o", filepath.Join(dir, "m3.jsonl")}, "", "", "--measurements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			oneLine(t, code, stderr, tc.flag)
			if tc.victim != "" {
				same(t, tc.victim, tc.text)
			}
			if n := calls(dir); n != 0 {
				t.Errorf("the benchmark ran %d times", n)
			}
		})
	}
	// A split model's shards: writing the workload of shard 1 over shard 2.
	s1 := put(t, dir, "big-00001-of-00002.gguf", string(gg))
	s2 := put(t, dir, "big-00002-of-00002.gguf", "shard two")
	_, stderr, code := runCLI(t, "workloads", "from-gguf", s1, "-o", s2)
	oneLine(t, code, stderr, "-o "+s2, "a shard of the model")
	same(t, s2, "shard two")
}

// Case 3: --rounds (or rounds: in a grid file) past its range is refused
// at once; 10^8 rounds grew to 6.1 GB before the first run, 2^63-1
// panicked in makeslice.
func TestReplayRoundsRange(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, "")
	w, _ := tinyWorkload(t, dir)
	runs := filepath.Join(dir, "runs.jsonl")
	base := []string{"calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements", runs}
	for _, rounds := range []string{"100000000", "9223372036854775807"} {
		_, stderr, code := runCLI(t, append(base, "--rounds", rounds)...)
		oneLine(t, code, stderr, "--rounds", rounds, "outside [0, 1000]")
	}
	grid := put(t, dir, "grid.yaml", "command: "+bench+"\nrounds: 100000000\n")
	_, stderr, code := runCLI(t, "calibrate", "--grid", grid, "--workload", w, "--no-fit", "--measurements", runs)
	oneLine(t, code, stderr, "100000000 is outside [0, 1000]")
	if n := calls(dir); n != 0 {
		t.Errorf("the benchmark ran %d times", n)
	}
	if _, err := os.Stat(runs); err == nil {
		t.Errorf("%s was created", runs)
	}
}

// Cases 12 and 13: a grid run again without --resume is refused before it
// runs (it used to append, and 8 of the file's 16 lines became bad), and
// --resume on a file the one rule for bad lines refuses is refused before
// it measures (it used to measure the whole grid, then fail).
// The stand-in benchmark's throughput is 1NNN.5 from the clock's nanoseconds, so
// that each run differs; without the leading 1 a clock reading such as 012
// gave the invalid JSON number 012.5, about one run in ten.
func TestReplayRerunAndResume(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, `echo "{\"build_commit\":\"x\",\"n_threads\":1,\"poll\":50,\"n_prompt\":64,\"n_gen\":0,\"avg_ts\":1$(date +%N | cut -c1-3).5,\"stddev_ts\":0.1}"; exit 0`)
	w, _ := tinyWorkload(t, dir)
	runs := filepath.Join(dir, "runs.jsonl")
	args := []string{"calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements", runs, "--env", "ORK_BL_POLL=0,50,100"}
	if _, stderr, code := runCLI(t, args...); code != 0 {
		t.Fatalf("first run: %s", stderr)
	}
	before, _ := os.ReadFile(runs)
	ran := calls(dir)
	_, stderr, code := runCLI(t, args...)
	oneLine(t, code, stderr, "--measurements", "already has measurements", "--resume")
	same(t, runs, string(before))
	if calls(dir) != ran {
		t.Errorf("the rerun ran the benchmark %d times", calls(dir)-ran)
	}
	if _, _, err := measure.ReadUsable(runs, nil); err != nil {
		t.Errorf("the file is no longer usable: %v", err)
	}
	// A file of bad lines: --resume refuses it before measuring.
	bad := put(t, dir, "bad.jsonl", seedRecord(t, "one", nil)+strings.Repeat("{not a record}\n", 5))
	_, stderr, code = runCLI(t, "calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements", bad, "--resume", "--env", "ORK_BL_POLL=0,50,100")
	oneLine(t, code, stderr, "5 of its 6 lines are bad")
	if calls(dir) != ran {
		t.Errorf("--resume on a broken file ran the benchmark %d times", calls(dir)-ran)
	}
}

// Case 15: calibrate -o into a folder that takes no file is found before
// measuring (a code comment said so; it was found after).
func TestReplayUnwritableProfileFolder(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	bench := replayBench(t, dir, "")
	w, _ := tinyWorkload(t, dir)
	out := "/proc/self/profile.yaml" // a folder no one can add a file to, root included
	_, stderr, code := runCLI(t, "calibrate", "--bench", bench, "--workload", w, "--soc", "rk3588", "--measurements", filepath.Join(dir, "m.jsonl"), "-o", out)
	oneLine(t, code, stderr, "-o "+out, "cannot write in /proc/self")
	if n := calls(dir); n != 0 {
		t.Errorf("the benchmark ran %d times before the output was found unwritable", n)
	}
}
