package main

// Replays of issue 31, cases 6-9, 16, 17 and 20: inputs bounded, one range
// for flags and files, and names printed without their control characters.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/presets"
)

// Cases 7 and 20: a record no run can be (prompt 2^20 at ubatch 1, which
// hung validate, fit and plot parity; a depth of 2^62; a sample below the
// physical range; a CV of 1e308), or one whose plan the SoC cannot run
// (which stopped the whole command), is one bad line: beside ten good
// ones, a warning naming it; alone, the file is refused.
func TestReplayBadRecords(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, want string
		edit       func(*measure.Measurement)
	}{
		{"a prompt of 2^20 one-token ubatches", "1048576 ubatches", func(m *measure.Measurement) {
			m.Run = &measure.Run{PromptTokens: 1 << 20, Ubatch: 1}
		}},
		{"a depth of 2^62", "outside [0, 4194304] for a KV depth", func(m *measure.Measurement) {
			m.Run = &measure.Run{PromptTokens: 512, Ubatch: 512, Depth: 1 << 62}
		}},
		{"a sample below the range", "samples[1]: 1e-09 t/s is outside", func(m *measure.Measurement) { m.Samples = []float64{26.2, 1e-9} }},
		{"a CV of 1e308", "cv: 1e+308 is outside [0, 10]", func(m *measure.Measurement) { m.CV = 1e308 }},
		{"a plan the SoC cannot run", `soc rk3588 cannot run its plan: plan: soc rk3588: no engine "nosuch"`, func(m *measure.Measurement) {
			m.Plan.Mode, m.Plan.Engines, m.Plan.Fracs, m.Plan.Threads = "token", []string{"big", "nosuch"}, []float64{0.9, 0.1}, []int{4, 4}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := seedRecord(t, "bad", tc.edit)
			mixed := put(t, dir, "mixed.jsonl", goodRecords(t, 10)+bad)
			alone := put(t, dir, "alone.jsonl", bad)
			for _, args := range [][]string{
				{"validate", "--soc", "rk3588", "--measurements"},
				{"plot", "parity", "-o", filepath.Join(dir, "p.png"), "--measurements"},
			} {
				done := make(chan struct{})
				var stderr string
				var code int
				go func() {
					defer close(done)
					_, stderr, code = runCLI(t, append(args, mixed)...)
				}()
				select {
				case <-done:
				case <-time.After(2 * time.Minute):
					t.Fatalf("%v: still running after two minutes", args)
				}
				if code != 0 || !strings.Contains(stderr, "mixed.jsonl:11: ") || !strings.Contains(stderr, tc.want) {
					t.Errorf("%v beside good records: exit %d, stderr %q: want a warning naming line 11 and %q", args, code, stderr, tc.want)
				}
				_, stderr, code = runCLI(t, append(args, alone)...)
				oneLine(t, code, stderr, "no readable measurements", tc.want)
			}
		})
	}
}

// Case 7: a benchmark that prints a run no prediction can make is
// recorded as failed, not ok.
func TestReplayImpossibleBenchmarkRun(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, `printf '{"build_commit":"x","n_threads":1,"poll":50,"n_prompt":1048576,"n_ubatch":1,"n_gen":0,"avg_ts":20.5,"stddev_ts":0.1}\n'; exit 0`)
	w, _ := tinyWorkload(t, dir)
	runs := filepath.Join(dir, "runs.jsonl")
	runCLI(t, "calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements", runs)
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 || len(ms) != 1 || ms[0].Status != measure.StatusFailed || !strings.Contains(ms[0].Error, "1048576 ubatches") {
		t.Errorf("recorded %+v (%v): want one failed run naming its ubatches", ms, errs)
	}
}

// Case 6: a measurements file past measure.MaxFileBytes makes every
// command exit 1 (it used to warn and go on with the first part).
func TestReplayMeasurementsPastLimit(t *testing.T) {
	defer func(n int64) { measure.MaxFileBytes = n }(measure.MaxFileBytes)
	measure.MaxFileBytes = 4096
	dir := t.TempDir()
	big := put(t, dir, "big.jsonl", goodRecords(t, 40))
	for _, args := range [][]string{
		{"validate", "--soc", "rk3588", "--measurements", big},
		{"plot", "parity", "-o", filepath.Join(dir, "p.png"), "--measurements", big},
		{"fit", "--soc", "rk3588", "--measurements", big, "-o", filepath.Join(dir, "fitted.yaml")},
	} {
		_, stderr, code := runCLI(t, args...)
		oneLine(t, code, stderr, "more than 4096 bytes", "reading stopped")
	}
	if _, err := os.Stat(filepath.Join(dir, "fitted.yaml")); err == nil {
		t.Error("fit wrote a profile from the first part of the file")
	}
}

var cpusLine = regexp.MustCompile(`cpus: \[[0-9, ]*\]`)

// Case 8: a split search over more engines than blsim searches in minutes
// is refused at once, and one over four engines shows its progress.
func TestReplayManyEngines(t *testing.T) {
	b, err := presets.SoCData("cix-p1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	head, rest, _ := strings.Cut(s, "\n  - name: ")
	body, tail, _ := strings.Cut(rest, "\nhandoff:")
	first, others, _ := strings.Cut(body, "\n  - name: ")
	_ = others
	var engines []string
	var e strings.Builder
	for i := range 7 {
		name := fmt.Sprintf("c%d", i)
		engines = append(engines, name)
		// Each its own CPUs: no CPU is two engines'.
		cpus := fmt.Sprintf("cpus: [%d, %d, %d, %d]", 4*i, 4*i+1, 4*i+2, 4*i+3)
		fmt.Fprintf(&e, "\n  - name: %s%s", name, cpusLine.ReplaceAllString(first[strings.IndexByte(first, '\n'):], cpus))
	}
	soc := head + e.String() + "\nhandoff:" + tail
	if i := strings.Index(soc, "\nuncertainty:"); i >= 0 {
		soc = soc[:i+1]
	}
	dir := t.TempDir()
	path := put(t, dir, "seven.yaml", soc)
	_, stderr, code := runCLI(t, "predict", "--soc", path, "--engines", strings.Join(engines, ","), "--draws", "2")
	oneLine(t, code, stderr, "7 engines; at most 6")
	_, stderr, code = runCLI(t, "predict", "--soc", path, "--engines", strings.Join(engines[:4], ","), "--draws", "2")
	if code != 0 || !strings.Contains(stderr, "over 4 engines") {
		t.Errorf("four engines: exit %d, stderr %q: want the progress bar", code, stderr)
	}
}

// Case 9: a named pipe no program writes to, given as any input, is a
// one-line error within readfile.OpenWait, not a wait without end.
func TestReplayPipeWithoutWriter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("named pipes as Linux makes them")
	}
	defer func(w time.Duration) { readfile.OpenWait = w }(readfile.OpenWait)
	readfile.OpenWait = 200 * time.Millisecond
	dir := t.TempDir()
	for _, name := range []string{"soc.yaml", "w.yaml", "m.gguf", "runs.jsonl"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"predict", "--soc", filepath.Join(dir, "soc.yaml")},
		{"predict", "--workload", filepath.Join(dir, "w.yaml")},
		{"workloads", "from-gguf", filepath.Join(dir, "m.gguf")},
		{"validate", "--soc", "rk3588", "--measurements", filepath.Join(dir, "runs.jsonl")},
	} {
		done := make(chan struct{})
		var stderr string
		var code int
		go func() {
			defer close(done)
			_, stderr, code = runCLI(t, args...)
		}()
		select {
		case <-done:
			oneLine(t, code, stderr, "named pipe", "no program writes to it")
		case <-time.After(time.Minute):
			t.Errorf("%v: still waiting after a minute", args)
		}
	}
}

// Cases 16 and 17: names from files print with their control characters
// escaped (an ESC sequence clears the screen or forges a line), and an
// unknown key under a workload's types: is refused.
func TestReplayNamesAndTypes(t *testing.T) {
	dir := t.TempDir()
	b, err := presets.SoCData("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	soc := put(t, dir, "soc.yaml", strings.Replace(string(b), "\nname: rk3588\n", "\nname: \"\\e[2J\\e[Hrk3588\\rforged\"\n", 1))
	_, wtext := tinyWorkload(t, dir)
	w := put(t, dir, "w2.yaml", strings.Replace(wtext, "name: tiny-moe", "name: \"tiny\\e]0;title\\a\"", 1))
	stdout, stderr, code := runCLI(t, "predict", "--soc", soc, "--workload", w, "--draws", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, out := range []string{stdout, stderr} {
		if strings.ContainsAny(out, "\x1b\r\a") {
			t.Errorf("printed a control character: %q", out)
		}
	}
	if !strings.Contains(stdout, `\x1b[2J\x1b[Hrk3588\x0dforged`) {
		t.Errorf("the SoC's name is not shown escaped:\n%s", stdout)
	}
	types := put(t, dir, "types.yaml", strings.Replace(wtext, "run:", "  types: {experts_gate_up: q4_k, expert_gate_up: q4_k}\nrun:", 1))
	_, stderr, code = runCLI(t, "predict", "--workload", types, "--draws", "2")
	oneLine(t, code, stderr, "model.types.expert_gate_up: unknown tensor class")
}

// Case 20: --depth and a workload's depth have one range, and a SoC whose
// cores no ggml pool can run is refused where it is read, not when a
// thread sweep builds a pool of 513 threads.
func TestReplayOneRange(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "predict", "--depth", "16777216", "--draws", "2")
	oneLine(t, code, stderr, "--depth: 16777216 is outside [0, 4194304] for a KV depth")
	_, wtext := tinyWorkload(t, dir)
	w := put(t, dir, "deep.yaml", strings.Replace(wtext, "depth: 0", "depth: 16777216", 1))
	_, stderr, code = runCLI(t, "predict", "--workload", w, "--draws", "2")
	oneLine(t, code, stderr, "run.depth: 16777216 is outside [0, 4194304] for a KV depth")
	b, _ := presets.SoCData("rk3588")
	big := put(t, dir, "big.yaml", strings.Replace(string(b), "cores: 4", "cores: 512", 2))
	_, stderr, code = runCLI(t, "predict", "--soc", big, "--threads-sweep")
	oneLine(t, code, stderr, "--soc", "1024 CPU cores in all: at most 512")
}
