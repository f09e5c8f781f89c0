package calibrate

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/presets"
)

func TestDispatcherFailures(t *testing.T) {
	d := func(status string, median float64) measure.Measurement {
		return measure.Measurement{Kind: measure.Dispatcher, Status: status, Median: median}
	}
	for _, tc := range []struct {
		ms          []measure.Measurement
		ran, failed int
	}{
		{nil, 0, 0},
		{[]measure.Measurement{{Kind: measure.Stream, Status: "failed"}}, 0, 0},
		{[]measure.Measurement{d("ok", 100), d("failed", 0)}, 2, 1},
		{[]measure.Measurement{d("failed", 0), d("failed", 0), {Kind: measure.Stream, Status: "ok", Median: 9}}, 2, 2},
	} {
		if ran, failed := DispatcherFailures(tc.ms); ran != tc.ran || failed != tc.failed {
			t.Errorf("%d measurements: %d ran, %d failed; want %d, %d", len(tc.ms), ran, failed, tc.ran, tc.failed)
		}
	}
}

// Steps puts the microbenchmarks before the dispatcher grid unless told
// not to, and sizes the default workload.
func TestSteps(t *testing.T) {
	w, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	s := &Settings{Engines: twoEngines(), Quick: true, Workload: w}
	all, err := Steps(s)
	if err != nil {
		t.Fatal(err)
	}
	micro := MicroSteps(s)
	// The engines at once (on the dispatcher's weights) between them.
	if len(micro) == 0 || len(all) <= len(micro)+1 || all[0].ID != micro[0].ID || !strings.HasPrefix(all[len(micro)].ID, "atonce/") ||
		!strings.HasPrefix(all[len(micro)+1].ID, "dispatcher/") {
		t.Fatalf("%d steps, %d microbenchmarks first: %s", len(all), len(micro), all[0].ID)
	}
	s.NoMicro = true
	only, err := Steps(s)
	if err != nil || len(only) != len(all)-len(micro)-1 || !strings.HasPrefix(only[0].ID, "dispatcher/") {
		t.Fatalf("NoMicro: %d steps, %v", len(only), err)
	}
	done := map[string]bool{only[0].ID: true, only[2].ID: true, "other": true}
	if n := CountDone(only, done); n != 2 {
		t.Errorf("CountDone = %d, want 2", n)
	}
	want := fmt.Sprintf("calibrate: big=1 little=0; %d steps (2 already measured); workload qwen3.5-35b-a3b (%d layers); writing runs.jsonl", len(only), w.Model.Layers)
	if got := Header(s, only, done, "runs.jsonl"); got != want {
		t.Errorf("header\n %s\nwant\n %s", got, want)
	}
	want = fmt.Sprintf("calibrate: big=1 little=0; %d steps (0 already measured): %d microbenchmarks, about %v, and %d dispatcher runs (their time once the microbenchmarks are in); workload",
		len(all), len(micro)+1, (time.Duration(len(micro)+1) * 450 * time.Millisecond).Round(time.Second), len(only))
	if got := Header(s, all, nil, "runs.jsonl"); !strings.HasPrefix(got, want) {
		t.Errorf("header\n %s\nwant it to start\n %s", got, want)
	}
	// Once the microbenchmarks are in: the grid's time at their rates.
	soc, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	eng := twoEngines()
	soc.Engines[0].Name, soc.Engines[1].Name = eng[0].Cluster.Name, eng[1].Cluster.Name
	if got := Announce(all, done, soc); !strings.HasPrefix(got, fmt.Sprintf("the dispatcher grid: %d runs, about ", len(only)-2)) {
		t.Errorf("announce: %q", got)
	}
	d := &Settings{Engines: twoEngines(), Quick: true, NoMicro: true}
	if _, err := Steps(d); err != nil || d.Workload == nil || d.Workload.Name != "synthetic-moe-calib" {
		t.Errorf("default workload: %v %+v", err, d.Workload)
	}
}

func TestHost(t *testing.T) {
	h := Host("/")
	name, _ := os.Hostname()
	if h.Arch != runtime.GOARCH || h.Name != name {
		t.Errorf("host %+v", h)
	}
	if h := Host(t.TempDir()); h.Governors != nil {
		t.Errorf("governors under an empty tree: %v", h.Governors)
	}
}
