package main

// Replays of issue 31 that need processes: the benchmark's children (10),
// a signal during calibrate's fit (11), a second writer racing --resume
// (14), report -o killed at any moment (19), and a run that prints
// megabytes (6).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
)

// blsimCmd is this test binary run as blsim (TestMain) on args.
func blsimCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1")
	return cmd
}

// Case 10: what a benchmark starts and leaves behind (a helper writing
// elsewhere) dies when its run ends, not only when the run is cancelled.
func TestReplayBenchmarkChildren(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, `sleep 300 >/dev/null 2>&1 &
echo $! >> "$(dirname "$0")/helpers"`)
	w, _ := tinyWorkload(t, dir)
	if _, stderr, code := runCLI(t, "calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements",
		filepath.Join(dir, "runs.jsonl"), "--env", "ORK_BL_POLL=0,50", "--reruns", "0"); code != 0 { // a re-run of a disturbed run is a run too
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "helpers"))
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("helpers %q: want one per run", pids)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("helper %d outlived its run", pid)
				break
			}
		}
	}
}

// fitBench prints one record of its -t and $ORK_BL_POLL: a grid whose fit
// over the seed's workload takes many seconds.
const fitBench = `#!/bin/sh
t=1
while [ $# -gt 0 ]; do if [ "$1" = "-t" ]; then t=$2; fi; shift; done
p=${ORK_BL_POLL:-50}
awk -v t="$t" -v p="$p" 'BEGIN{a=8+3*t+p/100; printf "{\"build_commit\":\"x\",\"n_threads\":%d,\"poll\":%d,\"n_prompt\":512,\"n_gen\":0,\"avg_ts\":%f,\"stddev_ts\":0.1,\"samples_ts\":[%f,%f]}\n", t, p, a, a-0.1, a+0.1}'
`

// Case 11: SIGINT, SIGTERM or SIGHUP during calibrate's fit stops it: no
// profile is written and the measurements stay (they ran on 51.6 s, then
// wrote the profile). The grid's 20 points are 16 distinct runs: a pool of
// one thread (-t 1) never waits at a barrier, so its poll cannot matter.
func TestReplaySignalDuringFit(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			put(t, dir, "fb", fitBench)
			os.Chmod(filepath.Join(dir, "fb"), 0o755)
			cmd := blsimCmd(t, dir, "calibrate", "--bench", "./fb", "--soc", "rk3588", "--workload", "qwen3.5-35b-a3b",
				"--env", "ORK_BL_POLL=0,25,50,75,100", "--arg", "-t=1,2,3,4", "--measurements", "runs.jsonl", "-o", "prof.yaml", "--accept-poor-fit", "--reruns", "0")
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "16 runs: 16 ok"); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the grid did not finish:\n%s\n%s", stdout.String(), stderr.String())
				}
			}
			time.Sleep(300 * time.Millisecond) // into the fit
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(stderr.String(), "interrupted during the fit: no profile written") {
					t.Errorf("after %v: %v\n%s", sig, err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Errorf("still fitting 20 s after %v", sig)
			}
			if _, err := os.Stat(filepath.Join(dir, "prof.yaml")); err == nil {
				t.Errorf("a profile was written after %v", sig)
			}
			if ms, errs := measure.ReadFile(filepath.Join(dir, "runs.jsonl")); len(ms) != 16 || len(errs) != 0 {
				t.Errorf("%d measurements kept (%v), want 16", len(ms), errs)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Case 14: --resume takes the file's lock before it reads which runs are
// done. A second calibrate that read the file while the first was in its
// last run, and took the lock once the first had let it go, measured that
// run again, with another value: a line every reader refuses. The replay
// stops the second (SIGSTOP) the moment it has read the file to its end,
// lets the first finish, and lets the second go on. The stand-in
// benchmark's throughput is 1NNNN.5 from the clock, never a JSON number
// with a leading zero.
func TestReplayResumeRace(t *testing.T) {
	dir := t.TempDir()
	bench := replayBench(t, dir, `if [ "$ORK_BL_POLL" = 100 ]; then while [ -e "$(dirname "$0")/hold" ]; do sleep 0.01; done; fi
echo "{\"build_commit\":\"x\",\"n_threads\":1,\"poll\":50,\"n_prompt\":64,\"n_gen\":0,\"avg_ts\":1$(date +%N | cut -c1-4).5,\"stddev_ts\":0.1}"; exit 0`)
	w, _ := tinyWorkload(t, dir)
	runs := filepath.Join(dir, "runs.jsonl")
	// Other runs before these: the file takes a while to read, and the
	// moment the second has read it all can be caught.
	var pre strings.Builder
	for i := 0; pre.Len() < 16<<20; i++ {
		fmt.Fprintf(&pre, `{"schema":"blsim/measurement/v1","id":"pre-%d","kind":"stream","unit":"GB/s","samples":[10,10.1],"median":10.05,"status":"ok"}`+"\n", i)
	}
	put(t, dir, "runs.jsonl", pre.String())
	put(t, dir, "hold", "")
	args := []string{"calibrate", "--bench", bench, "--workload", w, "--no-fit", "--measurements", runs, "--resume", "--env", "ORK_BL_POLL=0,50,100"}
	first := blsimCmd(t, dir, args...)
	var out1 syncBuffer
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	for deadline := time.Now().Add(time.Minute); calls(dir) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first calibration did not reach its last run:\n%s", out1.String())
		}
	}
	st, err := os.Stat(runs)
	if err != nil {
		t.Fatal(err)
	}
	second := blsimCmd(t, dir, args...)
	var out2 syncBuffer
	second.Stdout, second.Stderr = &out2, &out2
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer second.Process.Kill()
	exited := make(chan struct{})
	go func() { second.Wait(); close(exited) }()
	stopped := false
	for deadline := time.Now().Add(time.Minute); !stopped; {
		select {
		case <-exited:
		default:
			if readTo(second.Process.Pid, runs) >= st.Size() {
				second.Process.Signal(syscall.SIGSTOP)
				stopped = true
			}
			if time.Now().After(deadline) {
				t.Fatal("the second calibration neither read the file nor ended")
			}
			continue
		}
		break
	}
	os.Remove(filepath.Join(dir, "hold"))
	first.Wait()
	if stopped {
		second.Process.Signal(syscall.SIGCONT)
	}
	<-exited
	_, errs := measure.ReadFile(runs)
	for _, err := range errs {
		if strings.Contains(err.Error(), "already measured with other values") {
			t.Errorf("a run was measured twice: %v\nfirst:\n%s\nsecond:\n%s", err, out1.String(), out2.String())
			break
		}
	}
}

// readTo is how far process pid has read path, the furthest of its
// descriptors open on it (/proc/PID/fdinfo), or -1.
func readTo(pid int, path string) int64 {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	pos := int64(-1)
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err != nil || target != path {
			continue
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "pos:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
					pos = max(pos, n)
				}
			}
		}
	}
	return pos
}

// Case 19: report -o DIR killed at any moment leaves DIR as it was or the
// new report, and the next run leaves no temporary folder behind (30
// kills left 23); a symlink as -o is refused, not replaced, and so is the
// current folder, before any work.
func TestReplayReportKilled(t *testing.T) {
	dir := t.TempDir()
	report := func(out string) []string {
		return []string{"report", "-o", out, "--soc", "ddr5", "--workload", filepath.Join(mustAbs(t, "testdata"), "tiny-moe.yaml"), "--draws", "2"}
	}
	start := time.Now()
	if out, err := blsimCmd(t, dir, report("rep")...).CombinedOutput(); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	took := time.Since(start)
	for k := 1; k <= 12; k++ {
		cmd := blsimCmd(t, dir, report("rep")...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(took * time.Duration(k) / 12)
		cmd.Process.Kill()
		cmd.Wait()
		if _, err := os.Stat(filepath.Join(dir, "rep", "report.md")); err != nil {
			t.Fatalf("after a kill at %d/12 of a run, rep/report.md is gone: %v", k, err)
		}
	}
	if out, err := blsimCmd(t, dir, report("rep")...).CombinedOutput(); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	os.Symlink(filepath.Join(dir, "rep"), filepath.Join(dir, "link"))
	if out, err := blsimCmd(t, dir, report("link")...).CombinedOutput(); err == nil || !strings.Contains(string(out), "symbolic link") {
		t.Errorf("-o a symlink: %v %s", err, out)
	}
	if st, err := os.Lstat(filepath.Join(dir, "link")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
	out, err := blsimCmd(t, filepath.Join(dir, "rep"), report(".")...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "current folder") {
		t.Errorf("-o .: %v %s", err, out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Case 6: a run that prints many tests is one failed run past
// runner.MaxRecordsPerRun, and its output is kept once, with its first
// record: 1.5 MB of stdout made a 121.6 MB file.
func TestReplayLoudBenchmark(t *testing.T) {
	dir := t.TempDir()
	loud := replayBench(t, dir, `i=0; while [ $i -lt 3000 ]; do printf '{"build_commit":"x","n_threads":1,"poll":50,"n_prompt":64,"n_gen":0,"avg_ts":20.5,"stddev_ts":0.1}\n'; i=$((i+1)); done; exit 0`)
	w, _ := tinyWorkload(t, dir)
	runs := filepath.Join(dir, "runs.jsonl")
	runCLI(t, "calibrate", "--bench", loud, "--workload", w, "--no-fit", "--measurements", runs)
	st, err := os.Stat(runs)
	if err != nil || st.Size() > 64<<10 {
		t.Errorf("one run of 3,000 tests took %d bytes of measurements (%v)", st.Size(), err)
	}
	some := replayBench(t, dir, `i=0; while [ $i -lt 20 ]; do printf '{"build_commit":"x","n_threads":1,"poll":50,"n_prompt":64,"n_gen":0,"avg_ts":20.5,"stddev_ts":0.1}\n'; i=$((i+1)); done; head -c 200000 /dev/zero | tr '\0' x; echo; exit 0`)
	runs2 := filepath.Join(dir, "runs2.jsonl")
	runCLI(t, "calibrate", "--bench", some, "--workload", w, "--no-fit", "--measurements", runs2)
	ms, errs := measure.ReadFile(runs2)
	withOutput := 0
	for _, m := range ms {
		if m.Stdout != "" {
			withOutput++
		}
	}
	if len(errs) != 0 || len(ms) != 20 || withOutput != 1 {
		t.Errorf("%d records (%v), %d of them with the run's output: want 20, one", len(ms), errs, withOutput)
	}
}
