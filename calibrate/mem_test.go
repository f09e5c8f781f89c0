package calibrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// memWorkload is a small calibration workload with routed experts, so
// that the full grid has its f32 points.
func memWorkload() *model.Workload {
	w := dispatch.CalibrationWorkload(0, 0)
	w.Model.Hidden, w.Model.Vocab, w.Model.MoE.Experts, w.Model.MoE.ExpertFFN = 128, 256, 8, 64
	w.Model.Layers = 2
	return w
}

// TestResidentOneAtATime: the dispatcher grid holds the weights of one
// workload at a time. No Q8_0 step runs while f32 weights are reachable,
// nor an f32 step beside the Q8_0 ones, and each round builds its f32
// weights once (its f32 points run together). It would fail if the f32
// weights stayed resident through the Q8_0 runs, as they did when a full
// calibration peaked at 4.4 GiB. Reachability is asked of the collector
// (weak pointers after runtime.GC), not of the bookkeeping.
func TestResidentOneAtATime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pinned pools need Linux")
	}
	if allowed, err := probe.AllowedCPUs(); err != nil || !slices.Contains(allowed, 0) || !slices.Contains(allowed, 1) {
		t.Skipf("cpus 0 and 1 not both allowed (%v)", err)
	}
	w := memWorkload()
	const rounds = 3
	s := &Settings{Engines: NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{1}}, {Name: "little", CPUs: []int{0}}}),
		Workload: w, NoMicro: true, Rounds: rounds, Shuffle: true, Repeats: 1, FixedRepeats: true}
	steps, err := DispatcherSteps(s, "main")
	if err != nil {
		t.Fatal(err)
	}
	type built struct {
		f32 bool
		p   weak.Pointer[dispatch.Model]
	}
	var models []built
	modelBuilt = func(bw *model.Workload, m *dispatch.Model) {
		models = append(models, built{bw.Name != w.Name, weak.Make(m)})
	}
	defer func() { modelBuilt = nil }()
	f32Builds := 0
	for i, st := range steps {
		f32 := strings.Contains(st.ID, "f32 weights")
		if _, err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.ID, err)
		}
		runtime.GC()
		alive := 0
		for _, b := range models {
			if b.p.Value() == nil {
				continue
			}
			alive++
			if b.f32 != f32 {
				t.Errorf("step %d %s: weights of the %s workload still reachable", i, st.ID, map[bool]string{true: "f32", false: "Q8_0"}[b.f32])
			}
		}
		if alive != 1 {
			t.Errorf("step %d %s: %d models reachable, want 1", i, st.ID, alive)
		}
		if f32 && (i == 0 || !strings.Contains(steps[i-1].ID, "f32 weights")) {
			f32Builds++
		}
	}
	builds := 0
	for _, b := range models {
		if b.f32 {
			builds++
		}
	}
	if f32Builds != rounds || builds != rounds {
		t.Errorf("%d blocks of f32 steps, %d f32 builds in %d rounds: want one each a round", f32Builds, builds, rounds)
	}
}

// TestMeasureReleasesWeights: once Measure has taken the steps, no
// weights are left reachable for the fit that follows.
func TestMeasureReleasesWeights(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pinned pools need Linux")
	}
	if allowed, err := probe.AllowedCPUs(); err != nil || !slices.Contains(allowed, 0) || !slices.Contains(allowed, 1) {
		t.Skipf("cpus 0 and 1 not both allowed (%v)", err)
	}
	var models []weak.Pointer[dispatch.Model]
	modelBuilt = func(_ *model.Workload, m *dispatch.Model) { models = append(models, weak.Make(m)) }
	defer func() { modelBuilt = nil }()
	c, err := Open(Run{Settings: Settings{Engines: NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{1}}, {Name: "little", CPUs: []int{0}}}),
		Host: &measure.Host{Arch: "test"}, Workload: memWorkload(), NoMicro: true, Rounds: 1, Repeats: 1, FixedRepeats: true},
		Path: filepath.Join(t.TempDir(), "runs.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Measure(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	for i, p := range models {
		if p.Value() != nil {
			t.Errorf("model %d of %d still reachable after Measure", i+1, len(models))
		}
	}
	if len(models) < 2 {
		t.Errorf("%d models built, want the workload's and its f32 variant's", len(models))
	}
}

// TestGroupStream: a round's f32 points move next to its first one, the
// others keep their order.
func TestGroupStream(t *testing.T) {
	p := func(name string, stream bool) Point {
		return Point{Plan: model.NewNative(name, 1, 0), Stream: stream}
	}
	a, b, c, d := p("a", false), p("b", false), p("c", false), p("d", false)
	s1, s2 := p("s1", true), p("s2", true)
	for _, tc := range []struct {
		in, want []Point
	}{
		{[]Point{a, b, c}, []Point{a, b, c}},
		{[]Point{a, s1, b, c, s2, d}, []Point{a, s1, s2, b, c, d}},
		{[]Point{s1, a, b, s2}, []Point{s1, s2, a, b}},
		{[]Point{a, b, s1, s2}, []Point{a, b, s1, s2}},
	} {
		got := slices.Clone(tc.in)
		groupStream(got)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%v: got %v, want %v", tc.in, got, tc.want)
		}
	}
}

// writeMeminfo writes root/proc/meminfo with MemAvailable kB (none when
// line is set: that line instead).
func writeMeminfo(t *testing.T, root string, availKB int64, line string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if line == "" {
		line = fmt.Sprintf("MemAvailable:   %d kB", availKB)
	}
	text := "MemTotal:        4038752 kB\nMemFree:          201440 kB\n" + line + "\nBuffers:           61208 kB\n"
	if err := os.WriteFile(filepath.Join(root, "proc", "meminfo"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckMemory: a calibration that needs more memory at once than
// MemAvailable is refused in one line naming both sizes and what needs
// them, on fake meminfo fixtures; one that fits, or whose large step is
// done already, is not; a missing meminfo is a warning, a malformed one an
// error naming its line.
func TestCheckMemory(t *testing.T) {
	w := memWorkload()
	s := &Settings{Engines: twoEngines(), Workload: w, MicroBudget: 1}
	steps, err := DispatcherSteps(s, "main")
	if err != nil {
		t.Fatal(err)
	}
	main, err := dispatch.WeightBytes(w)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := dispatch.WeightBytes(StreamWorkload(w, StreamMaxBytes))
	if err != nil {
		t.Fatal(err)
	}
	atonce := ""
	for _, st := range steps {
		if strings.HasPrefix(st.ID, "atonce/") {
			atonce = st.ID
		}
	}
	if atonce == "" {
		t.Fatal("no at-once step")
	}
	need, what, err := MemoryNeed(s, steps, nil)
	if err != nil || need != 2*main+MemoryHeadroomBytes || !strings.Contains(what, "at-once") {
		t.Fatalf("need %d (%s), %v: want the at-once step's %d", need, what, err, 2*main+MemoryHeadroomBytes)
	}
	done := map[string]bool{atonce: true}
	if rest, what, _ := MemoryNeed(s, steps, done); rest != max(main, stream)+MemoryHeadroomBytes || strings.Contains(what, "at-once") {
		t.Errorf("at-once step done: need %d (%s), want %d", rest, what, max(main, stream)+MemoryHeadroomBytes)
	}
	for _, tc := range []struct {
		name    string
		availKB int64
		line    string // the MemAvailable line, when not the number's
		done    map[string]bool
		want    string // in the error; "" none
		is      error
		warning bool
	}{
		{"fits", (need + 1023) / 1024, "", nil, "", nil, false},
		{"short by a kB", need/1024 - 1, "", nil, "needs " + GiB(need) + " at once", ErrMemory, false},
		{"the large step done", (max(main, stream)+MemoryHeadroomBytes+1023)/1024 + 1, "", done, "", nil, false},
		{"malformed", 0, "MemAvailable: plenty", nil, `meminfo:3: MemAvailable: "plenty"`, nil, false},
		{"no line", 0, "Cached: 5 kB", nil, "no MemAvailable line", nil, false},
		{"no file", -1, "", nil, "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.availKB >= 0 {
				writeMeminfo(t, root, tc.availKB, tc.line)
			}
			warning, err := CheckMemory(s, steps, tc.done, root)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want it to say %q", err, tc.want)
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("error %v, want %v", err, tc.is)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error of more than one line: %q", err)
			case (warning != "") != tc.warning:
				t.Errorf("warning %q", warning)
			}
			if errors.Is(err, ErrMemory) && (!strings.Contains(err.Error(), filepath.Join(root, "proc", "meminfo")) || !strings.Contains(err.Error(), GiB(tc.availKB<<10))) {
				t.Errorf("%v: want the file and its MemAvailable named", err)
			}
		})
	}
}

// TestStartRefusesMemory: Start refuses before anything is measured when
// the memory available under SysRoot cannot hold the calibration, and
// leaves the measurements file free for the next try.
func TestStartRefusesMemory(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "runs.jsonl")
	run := Run{Settings: Settings{Engines: twoEngines(), Host: &measure.Host{Arch: "test"}, Workload: memWorkload(), MicroBudget: 1},
		SysRoot: root, Path: path}
	writeMeminfo(t, root, 1000, "")
	c, err := Open(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); !errors.Is(err, ErrMemory) {
		t.Fatalf("1000 kB available: %v, want ErrMemory", err)
	}
	writeMeminfo(t, root, 64<<20, "")
	c, _ = Open(run)
	if err := c.Start(); err != nil {
		t.Fatalf("64 GiB available, after a refusal: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // closes the file without measuring
	if _, err := c.Measure(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPeakRSS: the peak is read from this process's status and counts
// memory touched since the last reading (64 MiB here); a malformed field
// names its line.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs")
	}
	before, err := kBField("/proc/self/status", "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	peak, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	if peak < before+60<<20 {
		t.Errorf("peak %s after touching 64 MiB on %s resident", GiB(peak), GiB(before))
	}
	runtime.KeepAlive(buf)
	bad := filepath.Join(t.TempDir(), "status")
	os.WriteFile(bad, []byte("Name: x\nVmHWM: 12 MB\n"), 0o644)
	if _, err := kBField(bad, "VmHWM"); err == nil || !strings.Contains(err.Error(), bad+":2: VmHWM") {
		t.Errorf("VmHWM in MB: %v", err)
	}
}
