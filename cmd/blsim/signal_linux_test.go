package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
)

// hangBench prints a record, except for fraction 0.5 while the file $HANG
// exists: then it writes its pid to $PIDFILE and sleeps (exec: the sleep is
// the process blsim started).
const hangBench = `#!/bin/sh
f="${ORK_BL_LITTLE_FRAC:-0}"
if [ "$f" = "0.5" ] && [ -e "$HANG" ]; then echo $$ > "$PIDFILE.tmp"; mv "$PIDFILE.tmp" "$PIDFILE"; exec sleep 120; fi
awk -v f="$f" 'BEGIN{a=20+10*f; printf "{\"build_commit\": \"0104b151\", \"n_threads\": 4, \"poll\": 50, \"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": %f, \"stddev_ts\": 0.1,\"samples_ts\": [ %g, %g ]}\n", a, a-0.1, a+0.1}'
`

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestKilledCalibrateLeavesNoBenchmark kills blsim calibrate --bench in the
// middle of a run, by SIGKILL and by SIGHUP (an ssh drop): the benchmark it
// was running dies with it, the run finished before is in the file, and
// --resume measures only what is missing.
func TestKilledCalibrateLeavesNoBenchmark(t *testing.T) {
	skipShort(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			bench := filepath.Join(dir, "llama-bench")
			if err := os.WriteFile(bench, []byte(hangBench), 0o755); err != nil {
				t.Fatal(err)
			}
			hang, pidfile, runs := filepath.Join(dir, "hang"), filepath.Join(dir, "child.pid"), filepath.Join(dir, "runs.jsonl")
			if err := os.WriteFile(hang, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"calibrate", "--bench", bench, "--workload", "testdata/tiny-moe.yaml", "--no-fit",
				"--env", "ORK_MOE_BIGLITTLE=1", "--env", "ORK_BL_LITTLE_FRAC=0.1,0.5", "--measurements", runs}
			cmd := exec.Command(self, args...)
			cmd.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1", "HANG="+hang, "PIDFILE="+pidfile)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("the benchmark never started its hanging run:\n%s", stderr.String())
				}
				if b, err := os.ReadFile(pidfile); err == nil {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
			}
			if !alive(pid) {
				t.Fatalf("benchmark %d not running", pid)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("blsim after %v: %v, want a non-zero exit", sig, err)
			}
			if sig != syscall.SIGKILL && !strings.Contains(stderr.String(), "--resume") {
				t.Errorf("after %v, stderr does not say how to go on:\n%s", sig, stderr.String())
			}
			for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("benchmark %d outlived blsim's %v", pid, sig)
				}
			}
			ms, errs := measure.ReadFile(runs)
			if len(errs) != 0 || len(ms) != 1 || ms[0].Status != measure.StatusOK {
				t.Fatalf("after %v the file holds %d measurements (%v): want the finished one", sig, len(ms), errs)
			}
			os.Remove(hang)
			resume := exec.Command(self, append(args, "--resume")...)
			resume.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1")
			out, err := resume.CombinedOutput()
			if err != nil {
				t.Fatalf("--resume: %v\n%s", err, out)
			}
			if ms, _ = measure.ReadFile(runs); len(ms) != 2 || ms[1].Status != measure.StatusOK {
				t.Errorf("after --resume: %d measurements, want 2 ok", len(ms))
			}
		})
	}
}
