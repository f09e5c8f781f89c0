package plots

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

// TestHeatmapNWay: the heatmap of a big+npu split on rk3588-npu (sim.BestN
// per cell) over the NPU's effective TOPS and submit latency.
func TestHeatmapNWay(t *testing.T) {
	s, w := load(t, "rk3588-npu")
	t0 := time.Now()
	d, err := SweepHeatmap(s, w, HeatmapOptions{Poll: 50, Engines: []string{"big", "npu"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8x6 big+npu heatmap swept in %v", time.Since(t0))
	if !d.NWay || !d.LogX || !d.LogY || d.XParam != ParamAccelTOPS || d.YParam != "engines.npu.submit_us" {
		t.Fatalf("N-way defaults: nway %v log %v/%v x %s y %s", d.NWay, d.LogX, d.LogY, d.XParam, d.YParam)
	}
	if len(d.X) != 8 || len(d.Y) != 6 || len(d.BestFracs) != 6 || len(d.BestFracs[0][0]) != 2 {
		t.Fatalf("grid %dx%d", len(d.X), len(d.Y))
	}
	// The studied point: 0.416 effective TOPS, 250 µs, a clear gain.
	if d.AtX < 0.4 || d.AtX > 0.43 || d.AtY != 250 || d.AtGain < 5 || d.AtFracs[1] < 0.5 {
		t.Errorf("studied point %.3f TOPS, %.0f µs: %+.1f%% at %v", d.AtX, d.AtY, d.AtGain, d.AtFracs)
	}
	nx, ny := len(d.X)-1, len(d.Y)-1
	g := d.Gain
	// Higher NPU throughput gains more (along x, at the lowest submit
	// latency, strictly; at the highest, not less).
	if !(g[0][nx] > g[0][0]+5) || g[ny][nx] < g[ny][0]-0.1 {
		t.Errorf("gain along x: low submit %+.2f -> %+.2f, high submit %+.2f -> %+.2f", g[0][0], g[0][nx], g[ny][0], g[ny][nx])
	}
	// Lower submit latency gains more (along y, at the highest throughput
	// strictly; at the lowest, not less).
	if !(g[0][nx] > g[ny][nx]+5) || g[0][0] < g[ny][0]-0.1 {
		t.Errorf("gain along y: fast NPU %+.2f -> %+.2f, slow NPU %+.2f -> %+.2f", g[0][nx], g[ny][nx], g[0][0], g[ny][0])
	}
	// The best split never loses much: the helper can always take nothing.
	for j, row := range g {
		for i, v := range row {
			if v < -1 {
				t.Errorf("cell (%d, %d): best gain %+.2f%%", i, j, v)
			}
		}
	}
	fig, err := Heatmap(d)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var prev []byte
	for k := 0; k < 2; k++ {
		path := filepath.Join(dir, "npu.png")
		if k == 1 {
			// A second, independent sweep renders the same bytes.
			d2, err := SweepHeatmap(s, w, HeatmapOptions{Poll: 50, Engines: []string{"big", "npu"}})
			if err != nil {
				t.Fatal(err)
			}
			if fig, err = Heatmap(d2); err != nil {
				t.Fatal(err)
			}
		}
		if err := Save(fig, path, 8*vg.Inch, 6*vg.Inch); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() < 600 || img.Bounds().Dy() < 400 {
			t.Errorf("%v pixels", img.Bounds())
		}
		if k == 1 && !bytes.Equal(prev, b) {
			t.Error("two renders differ")
		}
		prev = b
	}
}

func TestHeatmapEnginesErrors(t *testing.T) {
	s, w := load(t, "rk3588-npu")
	for name, o := range map[string]HeatmapOptions{
		"unknown":      {Engines: []string{"big", "gpu"}},
		"one":          {Engines: []string{"big"}},
		"twice":        {Engines: []string{"big", "npu", "npu"}},
		"accel first":  {Engines: []string{"npu", "big"}},
		"threads":      {Engines: []string{"big", "npu"}, Threads: []int{4}},
		"tops no npu":  {Engines: []string{"big", "little"}, XParam: ParamAccelTOPS, NX: 2, NY: 2, FracSteps: 2},
		"log negative": {Engines: []string{"big", "npu"}, XValues: []float64{-1, 1}},
	} {
		if _, err := SweepHeatmap(s, w, o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestHeatLogTicks(t *testing.T) {
	ts := heatLogTicks{}.Ticks(-2, 0.4)
	var labels []string
	for _, tk := range ts {
		labels = append(labels, tk.Label)
	}
	want := []string{"0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2"}
	if len(labels) != len(want) {
		t.Fatalf("ticks %v, want %v", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("ticks %v, want %v", labels, want)
			break
		}
	}
}
