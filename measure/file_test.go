package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func sample(id string) Measurement {
	m := Measurement{ID: id, Kind: Dispatcher, Unit: "t/s", Samples: []float64{10, 12, 11}, Status: "ok",
		Plan: &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{0.8, 0.2}, Threads: []int{1, 1}, Poll: 50}}
	m.Summarize()
	return m
}

func TestWriteReadResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := w.Write(sample(id)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	// A killed writer leaves half a line; the next writer starts afresh.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema":"blsim/measurement/v1","id":"c","ki`)
	f.Close()
	w, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sample("d")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ms, errs := ReadFile(path)
	if len(ms) != 3 || ms[0].ID != "a" || ms[2].ID != "d" {
		t.Fatalf("read %d measurements %+v", len(ms), ms)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "runs.jsonl:3:") {
		t.Fatalf("errors = %v, want one naming line 3", errs)
	}
	if ms[0].Median != 11 || ms[0].CV < 0.09 || ms[0].CV > 0.1 {
		t.Errorf("median %g cv %g, want 11 and 0.0909", ms[0].Median, ms[0].CV)
	}
	done, err := Done(path)
	if err != nil || !done["a"] || !done["d"] || done["c"] {
		t.Errorf("done = %v, %v", done, err)
	}
	if d, err := Done(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || len(d) != 0 {
		t.Errorf("missing file: %v %v", d, err)
	}
}

func TestReadBadLines(t *testing.T) {
	in := strings.Join([]string{
		`{"schema":"blsim/measurement/v1","id":"x","kind":"stream","unit":"GB/s","median":5,"cv":0.01,"status":"ok"}`,
		`garbage`,
		`{"schema":"blsim/measurement/v1","id":"y","kind":"stream","unit":"GB/s","median":-5,"cv":0.01,"status":"ok"}`,
		`{"schema":"blsim/measurement/v1","id":"z","kind":"stream","unit":"GB/s","median":5,"cv":0.01,"status":"ok","surprise":1}`,
		`{"schema":"blsim/measurement/v2","id":"w","kind":"stream","unit":"GB/s","median":5,"cv":0.01,"status":"ok"}`,
		``,
		`{"schema":"blsim/measurement/v1","id":"v","kind":"stream","unit":"GB/s","median":5,"cv":0.01,"status":"maybe"}`,
	}, "\n")
	ms, errs := Read(strings.NewReader(in), "f.jsonl")
	if len(ms) != 1 || ms[0].ID != "x" {
		t.Fatalf("got %+v", ms)
	}
	want := []string{"f.jsonl:2:", "f.jsonl:3: median", "f.jsonl:4:", "f.jsonl:5: schema", "f.jsonl:7: status"}
	if len(errs) != len(want) {
		t.Fatalf("errors %v", errs)
	}
	for i, w := range want {
		var le *LineError
		if !errors.As(errs[i], &le) || !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %v, want prefix %q", i, errs[i], w)
		}
	}
}

func TestWriteToUnwritable(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "dir.jsonl")); err == nil {
		t.Fatal("want an error for a missing directory")
	}
	if os.Getuid() != 0 {
		t.Skip("root can write anywhere")
	}
}

func TestLabel(t *testing.T) {
	m := sample("a")
	if got := m.Label(); got != "token f=0.2 poll=50" {
		t.Errorf("label %q", got)
	}
	n := Measurement{Kind: Stream, Engine: "big"}
	if got := n.Label(); got != "stream big" {
		t.Errorf("label %q", got)
	}
	// A native run on an engine the record names (not its grid's first).
	alone := Measurement{Kind: Dispatcher, Engine: "little", Plan: &model.Plan{Mode: "native", Engines: []string{"little"}, Threads: []int{1}, Poll: 50},
		Run: &Run{PromptTokens: 64, Ubatch: 2}}
	if got := alone.Label(); got != "native little poll=50 t=1 pp64 ub=2" {
		t.Errorf("label %q", got)
	}
}

// TestFullDisk writes to /dev/full, which fails every write with ENOSPC the
// way a full disk does: the error names the file and the run.
func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	w, err := Create("/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Write(sample("x"))
	if err == nil || !strings.Contains(err.Error(), "/dev/full") || !strings.Contains(err.Error(), "x") ||
		!strings.Contains(err.Error(), "no space left") {
		t.Errorf("full disk: %v", err)
	}
}

// TestReadBounds: a line over MaxLineBytes is reported with its number and
// skipped, the lines after it are read; a file over MaxFileBytes stops with
// an error; a second finished record of one ID with other values is
// refused.
func TestReadBounds(t *testing.T) {
	line := func(m Measurement) string {
		m.Schema = Schema
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	defer func(l int, f int64) { MaxLineBytes, MaxFileBytes = l, f }(MaxLineBytes, MaxFileBytes)
	MaxLineBytes = 1000
	long := `{"id":"x","pad":"` + strings.Repeat("z", 5000) + `"}` + "\n"
	other := sample("a")
	other.Samples = []float64{20, 21, 22}
	other.Summarize()
	failed := sample("a")
	failed.Status, failed.Samples, failed.Median = "failed", nil, 0
	text := line(sample("a")) + long + line(sample("b")) + line(other) + line(sample("a")) + line(failed) + strings.TrimSuffix(line(sample("c")), "\n")
	ms, errs := Read(strings.NewReader(text), "f.jsonl")
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "a,b,a,a,c" {
		t.Errorf("read %v", ids)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "f.jsonl:2: a line of more than 1000 bytes") ||
		!strings.Contains(errs[1].Error(), "f.jsonl:4: run a was already measured with other values") {
		t.Errorf("errors %v", errs)
	}
	MaxFileBytes = 4096
	ms, errs = Read(strings.NewReader(strings.Repeat(line(sample("d")), 100)), "big.jsonl")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "big.jsonl: more than 4096 bytes (over the size limit of measure.MaxFileBytes); reading stopped at line") || len(ms) == 0 || len(ms) >= 100 {
		t.Errorf("%d read, errors %v", len(ms), errs)
	}
	if runtime.GOOS == "linux" {
		MaxFileBytes = 1 << 20
		if _, errs := ReadFile("/dev/zero"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "reading stopped") {
			t.Errorf("/dev/zero: %v", errs)
		}
	}
}

// TestOneWriter: while one Writer holds a file, a second Create on it fails
// with ErrLocked (naming the holder on Linux); after Close it succeeds.
func TestOneWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Create(path)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second writer: %v, want ErrLocked", err)
	}
	if runtime.GOOS == "linux" && !strings.Contains(err.Error(), fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Errorf("second writer: %v, want the holder's pid %d", err, os.Getpid())
	}
	w.Close()
	w2, err := Create(path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	w2.Close()
}

// TestImpossibleValues: a finished run whose median or samples no machine
// gives is a bad line, named with its reason; a failed run with a zero
// median is not.
func TestImpossibleValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Measurement)
		reason string // "" reads fine
	}{
		{"fine", func(*Measurement) {}, ""},
		{"tiny median", func(m *Measurement) { m.Median = 1e-300 }, "median: 1e-300 t/s is outside [1e-06, 1e+09] t/s for a throughput"},
		{"huge sample", func(m *Measurement) { m.Samples = []float64{1e308, 10} }, "samples[0]: 1e+308 t/s is outside"},
		{"bandwidth", func(m *Measurement) { m.Unit, m.Median, m.Samples = "GB/s", 1e6, nil }, "median: 1e+06 GB/s is outside [0.01, 10000] GB/s for a bandwidth"},
		{"failed run", func(m *Measurement) { m.Status, m.Median, m.Samples = "failed", 0, nil }, ""},
		{"no unit range", func(m *Measurement) { m.Unit, m.Median = "widgets", 1e300 }, ""},
	} {
		m := sample("a")
		m.Schema = Schema
		tc.edit(&m)
		b, _ := json.Marshal(m)
		_, errs := Read(strings.NewReader(string(b)+"\n"), "f.jsonl")
		switch {
		case tc.reason == "" && len(errs) != 0:
			t.Errorf("%s: %v", tc.name, errs)
		case tc.reason != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), "f.jsonl:1: "+tc.reason)):
			t.Errorf("%s: %v, want %q", tc.name, errs, tc.reason)
		}
	}
	// Summaries of huge samples stay finite, for CheckRange to name.
	m := Measurement{Samples: []float64{1e308, 1e308, 1e308}}
	m.Summarize()
	if m.Median != 1e308 || math.IsNaN(m.CV) || math.IsInf(m.CV, 0) {
		t.Errorf("median %g cv %g", m.Median, m.CV)
	}
}

// TestBadLinesBounded: a file of many bad lines is read into at most
// MaxKeptErrors errors and one that counts the rest (20 MB of bad lines
// took 2.66 GB); BadLines and Check count them all.
func TestBadLinesBounded(t *testing.T) {
	text := line(t, sample("a")) + strings.Repeat("not a record\n", 10000)
	ms, errs := Read(strings.NewReader(text), "bad.jsonl")
	if len(ms) != 1 || len(errs) != MaxKeptErrors+1 || BadLines(errs) != 10000 {
		t.Fatalf("%d read, %d errors standing for %d bad lines", len(ms), len(errs), BadLines(errs))
	}
	if last := errs[len(errs)-1].Error(); last != "bad.jsonl: 9900 more bad lines, the last at line 10001" {
		t.Errorf("last error %q", last)
	}
	if _, err := Check("bad.jsonl", len(ms), errs); err == nil || !strings.Contains(err.Error(), "10000 of its 10001 lines are bad") {
		t.Errorf("check: %v", err)
	}
}

func line(t *testing.T, m Measurement) string {
	t.Helper()
	m.Schema = Schema
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}
