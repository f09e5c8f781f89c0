package busy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
)

// fakeProc is a procfs tree in a temporary directory whose counters a test
// sets between samples.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) *fakeProc {
	return &fakeProc{t: t, root: t.TempDir()}
}

func (f *fakeProc) write(rel, text string) {
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// stat sets /proc/stat: per CPU, busy ticks (as user) and steal ticks.
func (f *fakeProc) stat(busy, steal []int) {
	s := "cpu  0 0 0 0 0 0 0 0 0 0\n"
	for i := range busy {
		s += fmt.Sprintf("cpu%d %d 0 0 1000 0 0 0 %d 0 0\n", i, busy[i], steal[i])
	}
	f.write("stat", s+"intr 1 2 3\n")
}

// task sets a thread's stat line (ticks of user time, CPU), and the
// process's when tid is the pid.
func (f *fakeProc) task(pid, tid, ticks, cpu int) {
	line := taskLine(tid, ticks, cpu)
	f.write(fmt.Sprintf("%d/task/%d/stat", pid, tid), line)
}

func (f *fakeProc) process(pid, ticks int) {
	f.write(fmt.Sprintf("%d/stat", pid), taskLine(pid, ticks, 0))
}

func taskLine(pid, ticks, cpu int) string {
	// Fields 3..52 after "pid (comm)"; utime is field 14, stime 15,
	// processor 39. The name holds a space and a parenthesis.
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[0] = "R"
	f[14-3] = fmt.Sprint(ticks)
	f[39-3] = fmt.Sprint(cpu)
	s := fmt.Sprintf("%d (a b) c)", pid)
	for _, x := range f {
		s += " " + x
	}
	return s + "\n"
}

// TestWatchCountsOthers: on a fake procfs, the watch subtracts the run's
// own threads (this process's and a followed child's, each on the CPU it
// was read on) from the kernel's busy time, and what is left per CPU is
// the others'; steal and pressure come from their counters.
func TestWatchCountsOthers(t *testing.T) {
	f := newFakeProc(t)
	const self, kid = 100, 200
	f.stat([]int{1000, 1000}, []int{0, 0})
	f.process(self, 500)
	f.task(self, 100, 400, 1)
	f.task(self, 101, 100, 0)
	f.write("pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\nfull avg10=0 avg60=0 avg300=0 total=0\n")
	clock := time.Unix(0, 0)
	w, err := Start(Options{Root: f.root, Period: -1, PID: self, now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	w.Follow(kid)
	// One second: thread 100 runs all of it on cpu1; the child's thread runs
	// 0.5 s on cpu0; others take 0.3 s of cpu0; the hypervisor 0.1 s of cpu1.
	clock = clock.Add(500 * time.Millisecond)
	f.task(self, 100, 450, 1)
	f.task(kid, 200, 25, 0)
	w.Sample()
	clock = clock.Add(500 * time.Millisecond)
	f.task(self, 100, 500, 1)
	f.process(self, 600)
	f.task(kid, 200, 50, 0)
	f.stat([]int{1080, 1100}, []int{0, 10})
	f.write("pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1250000\n")
	in := w.Stop(-1)
	want := []measure.CPULoad{{CPU: 0, OwnPct: 50, OtherPct: 30}, {CPU: 1, OwnPct: 100, OtherPct: 0, StealPct: 10}}
	if in.WallS != 1 || len(in.CPUs) != 2 || in.CPUs[0] != want[0] || in.CPUs[1] != want[1] {
		t.Errorf("interference = %+v, want wall 1 and %+v", in, want)
	}
	if in.PressurePct == nil || *in.PressurePct != 25 {
		t.Errorf("pressure = %v, want 25%%", in.PressurePct)
	}
	if !in.Over() || in.Describe() != "another process on cpu0 for 30% of the run, the hypervisor on cpu1 for 10% of the run (steal)" {
		t.Errorf("Over %v, Describe %q", in.Over(), in.Describe())
	}
}

// TestWatchTopsUpExitedThreads: a thread that exits between two reads is
// counted through the process's total, on the CPUs the samples saw; the
// child's rusage likewise, when the caller gives it.
func TestWatchTopsUpExitedThreads(t *testing.T) {
	f := newFakeProc(t)
	const self = 100
	f.stat([]int{0, 0}, []int{0, 0})
	f.process(self, 0)
	f.task(self, 100, 0, 1)
	clock := time.Unix(0, 0)
	w, err := Start(Options{Root: f.root, Period: -1, PID: self, Used: []int{1}, now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	w.Follow(200)
	clock = clock.Add(time.Second)
	f.task(self, 100, 40, 1) // seen: 0.4 s on cpu1
	f.process(self, 100)     // but the process used 1 s: a thread exited
	f.stat([]int{0, 100}, []int{0, 0})
	in := w.Stop(0.5) // the child used 0.5 s and was never read: on the used CPU
	if in.CPUs[1].OwnPct != 150 || in.CPUs[1].OtherPct != 0 || in.Over() {
		t.Errorf("cpu1 = %+v (over %v), want own 150%% and no others", in.CPUs[1], in.Over())
	}
	if len(in.Used) != 1 || in.Used[0] != 1 {
		t.Errorf("used = %v", in.Used)
	}
}

// TestWatchNewThreadsBounded: a thread first read long after it started
// counts at most the time since the last read, not its whole life.
func TestWatchNewThreadsBounded(t *testing.T) {
	f := newFakeProc(t)
	f.stat([]int{0}, []int{0})
	f.process(1, 0)
	clock := time.Unix(0, 0)
	w, err := Start(Options{Root: f.root, Period: -1, PID: 1, now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Second)
	f.task(1, 7, 50000, 0) // 500 s of CPU: it was running long before
	f.stat([]int{100}, []int{0})
	in := w.Stop(-1)
	if in.CPUs[0].OwnPct > 101 || in.CPUs[0].OtherPct != 0 {
		t.Errorf("cpu0 = %+v, want at most the second since the last read as own", in.CPUs[0])
	}
}

func TestStartWithoutProcfs(t *testing.T) {
	if _, err := Start(Options{Root: t.TempDir()}); err != ErrUnsupported {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
	var w *Watch
	w.Follow(1) // a nil watch ignores it
}

func TestParseTaskStat(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{taskLine(5, 120, 3), true},
		{"5 (x) R 1 2", false},
		{"no name", false},
	} {
		tt, err := parseTaskStat([]byte(tc.line))
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v", tc.line, err)
		}
		if tc.ok && (tt.cpu != 3 || tt.secs != 1.2) {
			t.Errorf("%q: %+v", tc.line, tt)
		}
	}
}

// TestWatchPinnedPoolExits: a pinned run's worker exits with the run,
// before the last sample; its time is the process's beyond what the
// samples counted, and goes to the pinned CPU whose busy time the samples
// leave unexplained, not to the one they explain.
func TestWatchPinnedPoolExits(t *testing.T) {
	f := newFakeProc(t)
	const self = 100
	f.stat([]int{0, 0}, []int{0, 0})
	f.process(self, 0)
	f.task(self, 100, 0, 1)
	clock := time.Unix(0, 0)
	w, err := Start(Options{Root: f.root, Period: -1, PID: self, Used: []int{0, 1}, now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	// One second: the main thread all of it on cpu1; a worker on cpu0
	// half of it, gone by the end; a busy loop the other half of cpu0.
	clock = clock.Add(time.Second)
	f.task(self, 100, 100, 1)
	f.process(self, 150)
	f.stat([]int{100, 100}, []int{0, 0})
	in := w.Stop(-1)
	want := []measure.CPULoad{{CPU: 0, OwnPct: 50, OtherPct: 50}, {CPU: 1, OwnPct: 100}}
	if in.CPUs[0] != want[0] || in.CPUs[1] != want[1] {
		t.Errorf("cpus = %+v, want %+v", in.CPUs, want)
	}
	if got := in.Describe(); got != "another process on cpu0 for 50% of the run" {
		t.Errorf("Describe = %q", got)
	}
}
