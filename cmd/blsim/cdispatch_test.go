package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/probe"
)

// cdispatchSource is the independent C dispatcher that tests fit blsim to
// (see testdata/cdispatch/README.md).
const cdispatchSource = "testdata/cdispatch/ork_dispatch.c"

// buildCDispatch compiles the C dispatcher into a temporary folder with the
// system C compiler (cc, else gcc) and returns the binary's path. It skips
// the test where there is no C compiler or the host is not Linux (the
// program pins threads and sleeps on futexes).
func buildCDispatch(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the C dispatcher needs Linux (sched_setaffinity, futex)")
	}
	var compiler string
	for _, name := range []string{"cc", "gcc"} {
		if p, err := exec.LookPath(name); err == nil {
			compiler = p
			break
		}
	}
	if compiler == "" {
		t.Skip("no C compiler: neither cc nor gcc is on PATH")
	}
	src, err := filepath.Abs(cdispatchSource)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ork_dispatch")
	cmd := exec.Command(compiler, "-O3", "-march=native", "-pthread", "-o", bin, src, "-lm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(cmd.Args[1:], " "), err, out)
	}
	return bin
}

// cdispatchCPUs returns the big and little CPU lists for the C dispatcher:
// two different usable CPUs where there are two, else the one CPU twice.
func cdispatchCPUs(t *testing.T) (big, little string) {
	t.Helper()
	allowed, err := probe.AllowedCPUs()
	if err != nil || len(allowed) == 0 {
		t.Skipf("no usable CPUs: %v", err)
	}
	if len(allowed) == 1 {
		c := strconv.Itoa(allowed[0])
		return c, c
	}
	return strconv.Itoa(allowed[1]), strconv.Itoa(allowed[0])
}

// runCDispatch runs the binary with the given ORK_* knobs (any inherited
// ones are dropped) and returns its stdout, stderr and exit code.
func runCDispatch(t *testing.T, bin string, knobs []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ORK_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, knobs...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", bin, err)
	}
	return out.String(), errb.String(), code
}

var cdispatchChecksum = regexp.MustCompile(`checksum (\S+) split=(\w+)`)

func TestCDispatchPrintsLlamaBench(t *testing.T) {
	skipShort(t)
	bin := buildCDispatch(t)
	big, little := cdispatchCPUs(t)
	cpus := []string{"ORK_BL_BIG_CPUS=" + big, "ORK_BL_LITTLE_CPUS=" + little}
	poll := "ORK_BL_POLL=50"
	if big == little {
		poll = "ORK_BL_POLL=0" // two pools on one CPU: do not spin
	}
	const prompt, ubatch = 32, 16 // two ubatches a run
	args := []string{"-p", strconv.Itoa(prompt), "-ub", strconv.Itoa(ubatch), "-n", "0", "-r", "2", "-o", "jsonl"}

	var native float64
	for _, c := range []struct {
		split   string
		knobs   []string
		threads int // n_threads as the fork prints it: big, plus little when split
	}{
		{"native", nil, 1},
		{"token", []string{"ORK_MOE_BIGLITTLE=1", "ORK_BL_SPLIT=token", "ORK_BL_LITTLE_FRAC=0.3"}, 2},
		{"expert", []string{"ORK_MOE_BIGLITTLE=1", "ORK_BL_SPLIT=expert", "ORK_BL_LITTLE_FRAC=0.3"}, 2},
	} {
		knobs := append(append([]string{poll}, cpus...), c.knobs...)
		stdout, stderr, code := runCDispatch(t, bin, knobs, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.split, code, stderr)
		}
		recs, errs := llamabench.Parse(strings.NewReader(stdout), "ork_dispatch", llamabench.JSONL)
		if len(errs) > 0 || len(recs) != 1 {
			t.Fatalf("%s: %d records, errors %v\n%s", c.split, len(recs), errs, stdout)
		}
		r := recs[0]
		if r.NPrompt != prompt || r.NGen != 0 || r.NUbatch != ubatch || r.NThreads != c.threads {
			t.Errorf("%s: n_prompt %d n_gen %d n_ubatch %d n_threads %d, want %d 0 %d %d",
				c.split, r.NPrompt, r.NGen, r.NUbatch, r.NThreads, prompt, ubatch, c.threads)
		}
		if !(r.AvgTS > 0) || r.AvgNS <= 0 || len(r.SamplesTS) != 2 || len(r.SamplesNS) != 2 {
			t.Errorf("%s: avg_ts %g avg_ns %d samples_ts %v samples_ns %v", c.split, r.AvgTS, r.AvgNS, r.SamplesTS, r.SamplesNS)
		}
		for _, ts := range r.SamplesTS {
			if !(ts > 0) {
				t.Errorf("%s: sample %g t/s", c.split, ts)
			}
		}
		if r.BuildCommit != "ork-c" || r.Backends != "CPU" || r.ModelFilename != "ork-dispatch-synthetic" || r.ModelParams <= 0 || r.ModelSizeBytes <= 0 {
			t.Errorf("%s: build %q backends %q model %q params %d size %d", c.split, r.BuildCommit, r.Backends, r.ModelFilename, r.ModelParams, r.ModelSizeBytes)
		}
		if got := r.Fields["bl_split"]; got != c.split {
			t.Errorf("%s: bl_split %q", c.split, got)
		}
		if f, err := strconv.ParseFloat(r.Fields["bl_little_frac"], 64); err != nil || (c.split != "native") != (f == 0.3) {
			t.Errorf("%s: bl_little_frac %q", c.split, r.Fields["bl_little_frac"])
		}
		m := cdispatchChecksum.FindStringSubmatch(stderr)
		if m == nil || m[2] != c.split {
			t.Fatalf("%s: no checksum on stderr:\n%s", c.split, stderr)
		}
		sum, err := strconv.ParseFloat(m[1], 64)
		if err != nil || math.IsNaN(sum) || math.IsInf(sum, 0) {
			t.Fatalf("%s: checksum %q", c.split, m[1])
		}
		// The split moves work between pools, never changes the math.
		if c.split == "native" {
			native = sum
		} else if math.Abs(sum-native) > 1e-6*math.Max(1, math.Abs(native)) {
			t.Errorf("%s: checksum %v, native %v", c.split, sum, native)
		}
	}

	// Bad knobs and flags: one line on stderr, exit 2.
	for _, c := range []struct {
		knobs []string
		args  []string
	}{
		{[]string{"ORK_BL_LITTLE_FRAC=1.5"}, nil},
		{[]string{"ORK_BL_SPLIT=rows"}, nil},
		{[]string{"ORK_MOE_BIGLITTLE=maybe"}, nil},
		{[]string{"ORK_BL_POLL=101"}, nil},
		{[]string{"ORK_BL_BIG_CPUS=1-"}, nil},
		{nil, []string{"-n", "128"}},
		{nil, []string{"--frobnicate"}},
		{nil, []string{"-p", "0"}},
	} {
		_, stderr, code := runCDispatch(t, bin, append(append([]string{}, cpus...), c.knobs...), c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 and one line", c.knobs, c.args, code, stderr)
		}
	}
}

// skipShort skips a test that builds and runs real programs for tens of
// seconds under go test -short; the full go test ./... runs it.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow: builds and runs a real benchmark; go test without -short runs it")
	}
}
