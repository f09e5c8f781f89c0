package busy

import (
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// spinOn keeps a thread pinned to cpu busy for d.
func spinOn(t *testing.T, cpu int, d time.Duration) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &old) }()
	spinPinned(t, cpu, d)
}

// spinPinned pins the calling thread, locked to its goroutine, to cpu and
// keeps it busy for d. It may run on a goroutine of its own: an error
// fails the test without stopping it.
func spinPinned(t *testing.T, cpu int, d time.Duration) {
	t.Helper()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		t.Error(err)
		return
	}
	x := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := range 10000 {
			x += i
		}
	}
	_ = x
}

// startLoop starts a shell busy loop pinned to cpu, killed at cleanup.
func startLoop(t *testing.T, cpu int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(cmd.Process.Pid, &set); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// allowedCPU is the first CPU this process may run on, or with last the
// last.
func allowedCPU(t *testing.T, last bool) int {
	t.Helper()
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for c := range 1024 {
		if allowed.IsSet(c) {
			cpu = c
			if !last {
				break
			}
		}
	}
	if cpu < 0 {
		t.Skip("no CPU in this process's affinity mask")
	}
	return cpu
}

// busyCPU starts a busy loop of another process (startLoop) on the first
// CPU this process may run on and gives it a moment to be scheduled; it
// returns the CPU and the loop, killed at cleanup.
func busyCPU(t *testing.T) (int, *exec.Cmd) {
	t.Helper()
	cpu := allowedCPU(t, false)
	loop := startLoop(t, cpu)
	time.Sleep(50 * time.Millisecond)
	return cpu, loop
}

// TestWatchSeesABusyLoop: a pinned thread of ours sharing its CPU with a
// busy loop of another process is told apart from it: the loop is the
// other process, our thread is our own, and the run is disturbed. What is
// asserted is who ran, not how fast: any load on the machine only adds to
// the others' share.
func TestWatchSeesABusyLoop(t *testing.T) {
	cpu, _ := busyCPU(t)
	w, err := Start(Options{Used: []int{cpu}})
	if err != nil {
		t.Skip(err)
	}
	spinOn(t, cpu, 600*time.Millisecond)
	in := w.Stop(-1)
	var load *struct{ own, other float64 }
	for _, c := range in.CPUs {
		if c.CPU == cpu {
			load = &struct{ own, other float64 }{c.OwnPct, c.OtherPct}
		}
	}
	t.Logf("interference: %+v", in)
	if load == nil || load.own <= 0 || load.other < 10 || !in.Over() {
		t.Fatalf("cpu%d: %+v, over %v: want our thread and the loop each on it, and the run disturbed", cpu, load, in.Over())
	}
	if d := in.Describe(); d == "" {
		t.Errorf("no description")
	}
}

// TestWatchFollowsTheChild: a child process's CPU time is the run's own,
// not another process's, even without its rusage: a sample finds it. The
// child says when its work is done and waits to be let go, so that the
// sample comes after its work however slowly the machine runs it.
func TestWatchFollowsTheChild(t *testing.T) {
	w, err := Start(Options{Period: -1})
	if err != nil {
		t.Skip(err)
	}
	// Shell arithmetic only: no short-lived grandchild for a sample to miss.
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done; read x")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	w.Follow(cmd.Process.Pid)
	if _, err := stdout.Read(make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	w.Sample()
	stdin.Close()
	_ = cmd.Wait()
	in := w.Stop(-1)
	own := 0.0
	for _, c := range in.CPUs {
		own += c.OwnPct / 100 * in.WallS
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	t.Logf("child used %.3f s; the watch counted %.3f s as own; %+v", cpu, own, in)
	if own < 0.8*cpu-0.02 {
		t.Errorf("the watch counted %.3f s of the child's %.3f s as the run's own", own, cpu)
	}
}

// TestExitingThreadsCounted: pinned threads of this process that end
// between two samples (a pool's workers) log their time as they end
// (Exiting), and the watch counts it on their CPU.
func TestExitingThreadsCounted(t *testing.T) {
	cpu := allowedCPU(t, true)
	w, err := Start(Options{Period: -1, Used: []int{cpu}})
	if err != nil {
		t.Skip(err)
	}
	var used float64
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // exit locked: the thread ends with the goroutine
		// The thread may have run before the watch began (Go reuses its
		// threads): what it used during the watch is the time since.
		e0, ok0 := threadNow()
		spinPinned(t, cpu, 300*time.Millisecond)
		e, ok := threadNow()
		if ok && ok0 {
			used = e.Secs - e0.Secs
		}
		Exiting()
	}()
	<-done
	in := w.Stop(-1)
	var own float64
	for _, c := range in.CPUs {
		if c.CPU == cpu {
			own = c.OwnPct / 100 * in.WallS
		}
	}
	t.Logf("the thread used %.3f s; own on cpu%d %.3f s", used, cpu, own)
	if own < 0.9*used {
		t.Errorf("own on cpu%d %.3f s, want the ended thread's %.3f s", cpu, own, used)
	}
}
