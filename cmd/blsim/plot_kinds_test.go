package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

func TestPlotNewKinds(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	ms := filepath.Join(dir, "ddr5.jsonl")
	line := `{"schema":"blsim/measurement/v1","id":"a","kind":"dispatcher","soc":"ddr5","workload":"qwen3.5-35b-a3b","plan":{"mode":"token","engines":["big","little"],"fracs":[0.88,0.12],"threads":[4,4],"poll":50},"unit":"t/s","samples":[29.8,30.0,30.2],"median":30,"cv":0.0067,"status":"ok"}` + "\n"
	if err := os.WriteFile(ms, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, soc := range []string{"rk3588", "ddr5"} {
		for _, kind := range []string{"parity", "heatmap", "roofline"} {
			for _, ext := range []string{"png", "svg", "pdf"} {
				if kind == "heatmap" && ext != "png" {
					continue // the heatmap's sweep dominates; its formats are tested in package plots
				}
				path := filepath.Join(dir, soc+"-"+kind+"."+ext)
				var extra []string
				if kind == "parity" && soc == "ddr5" {
					extra = []string{"--measurements", ms, "--log"}
				}
				args := append([]string{kind, "--soc", soc, "-o", path}, extra...)
				out, err := runPlot(args...)
				if err != nil {
					t.Fatalf("plot %v: %v", args, err)
				}
				if out != "wrote "+path+"\n" {
					t.Errorf("stdout %q", out)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if ext != "png" {
					continue
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if img.Bounds().Dx() < 900 || img.Bounds().Dy() < 750 {
					t.Errorf("%s: %v pixels", path, img.Bounds())
				}
				again := path + ".again.png"
				if _, err := runPlot(append([]string{kind, "--soc", soc, "-o", again}, extra...)...); err != nil {
					t.Fatal(err)
				}
				if b2, _ := os.ReadFile(again); !bytes.Equal(b, b2) {
					t.Errorf("%s: two runs differ", path)
				}
			}
		}
	}
}

func TestPlotNewKindsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rk := `{"schema":"blsim/measurement/v1","id":"a","kind":"reported","soc":"rk3588","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","median":26.26,"cv":0,"status":"ok"}` + "\n"
	otherWL := strings.ReplaceAll(rk, "qwen3.5-35b-a3b", "mixtral-8x7b")
	micro := `{"schema":"blsim/measurement/v1","id":"k","kind":"kernel","soc":"rk3588","unit":"GOPS","median":3,"cv":0,"status":"ok"}` + "\n"
	out := filepath.Join(dir, "a.png")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"parity", "--soc", "ddr5", "-o", out}, "--measurements"},
		{[]string{"parity", "--soc", "ddr5", "--measurements", write("rk.jsonl", rk), "-o", out}, "are for soc rk3588, not ddr5"},
		// Without --workload, the parity of mixtral-8x7b (the workload its measurements ran).
		{[]string{"parity", "--workload", "qwen3.5-35b-a3b", "--measurements", write("wl.jsonl", otherWL), "-o", out}, "ran workload mixtral-8x7b, not workload qwen3.5-35b-a3b"},
		{[]string{"parity", "--measurements", write("bad.jsonl", "{not json\n"), "-o", out}, "bad.jsonl:1"},
		{[]string{"parity", "--measurements", filepath.Join(dir, "missing.jsonl"), "-o", out}, "missing.jsonl"},
		{[]string{"parity", "--measurements", write("micro.jsonl", micro), "-o", out}, "no throughput measurements"},
		{[]string{"heatmap", "--x-param", "dram.nosuch", "-o", out}, "dram.nosuch"},
		{[]string{"heatmap", "--x-param", "dram", "--y-param", "dram", "-o", out}, "both dram"},
		{[]string{"roofline", "-o", filepath.Join(dir, "a.tiff")}, `".tiff"`},
		{[]string{"roofline", "-o", filepath.Join(dir, "no", "such", "a.png")}, "no such file"},
		{[]string{"bar", "-o", out}, `unknown kind "bar"`},
		{[]string{"split", "--frac", "0.3", "-o", out}, "--frac: plot split does not take it"},
		{[]string{"split", "--soc", "rk3588-npu", "--engines", "big,npu", "-o", out}, "plot split draws one share between two CPU engines"},
		{[]string{"timeline", "--shares", "0.3", "--frac", "0.2", "-o", out}, "give --frac or --shares"},
		{[]string{"heatmap", "--engines", "big,little", "--frac", "0.3", "-o", out}, "--frac: plot heatmap does not take it"},
		{[]string{"timeline", "--x-param", "dram", "-o", out}, "--x-param: plot timeline does not take it"},
		{[]string{"parity", "--engines", "big,little", "-o", out}, "--engines: plot parity does not take it: it draws each measurement's own plan"},
		{[]string{"timeline", "--soc", "cix-p1", "--engines", "big,mid,little", "--frac", "0.3", "-o", out}, "--frac: 1 values for 2 engines"},
		{[]string{"roofline", "--soc", "cix-p1", "--engines", "big,mid,little", "--frac", "0.7,0.6", "-o", out}, "must not exceed 1"},
		{[]string{"roofline", "--soc", "rk3588-npu", "--engines", "big,npu", "--split", "expert", "-o", out}, `engine "npu" cannot take a share`},
		{[]string{"timeline", "--soc", "cix-p1", "--engines", "big,gpu", "-o", out}, "gpu"},
		{[]string{"split", "--soc", vmPrior, "--workload", "synthetic-moe", "--measurements", vmGrid, "--poll", "20", "-o", out}, "nothing in"},
	} {
		_, err := runPlot(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("plot %v: error %v, want one containing %s", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("plot %v: error is not one line: %q", tc.args, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left behind", len(ents))
	}
}

// timeline and roofline over more than two engines: at the best shares
// sim.BestN finds, or at the shares given.
func TestPlotOverNEngines(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"timeline", "--soc", "cix-p1", "--engines", "big,mid,little"},
		{"timeline", "--soc", "rk3588-npu", "--engines", "big,npu", "--frac", "0.7", "--layers", "1"},
		{"roofline", "--soc", "cix-p1", "--engines", "big,mid,little", "--split", "expert", "--engine-threads", "4,4,2"},
		{"roofline", "--soc", "rk3588-npu", "--engines", "big,npu"},
	} {
		path := filepath.Join(dir, strings.Join(args[:4], "-")+".svg")
		out, err := runPlot(append(args, "-o", path)...)
		if err != nil || out != "wrote "+path+"\n" {
			t.Fatalf("plot %v: %q %v", args, out, err)
		}
		b, _ := os.ReadFile(path)
		for _, e := range strings.Split(args[4], ",") {
			if !bytes.Contains(b, []byte(">"+e)) {
				t.Errorf("plot %v: no label for engine %s", args, e)
			}
		}
	}
}

var (
	vmPrior = filepath.Join("..", "..", "calibrate", "fit", "testdata", "vm-prior.yaml")
	vmGrid  = filepath.Join("..", "..", "calibrate", "fit", "testdata", "vm-bench-grid.jsonl")
)

// The split curve carries the measured points of its threads and poll: the
// seed's for rk3588, a recorded grid's merged by --stat otherwise.
func TestPlotSplitMeasured(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"split"}, []string{"measured native", "measured token split"}},
		{[]string{"split", "--soc", vmPrior, "--workload", "synthetic-moe", "--measurements", vmGrid, "--stat", "best"}, []string{"measured token split", "measured expert split"}},
	} {
		path := filepath.Join(dir, "split.svg")
		if _, err := runPlot(append(tc.args, "-o", path)...); err != nil {
			t.Fatalf("plot %v: %v", tc.args, err)
		}
		b, _ := os.ReadFile(path)
		for _, w := range tc.want {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("plot %v: no %q in the legend", tc.args, w)
			}
		}
	}
}

// Without --workload, plot split draws the curve of the workload the
// measurements ran (their workload_yaml), out to their largest share.
func TestPlotSplitMeasuredWorkload(t *testing.T) {
	dir := t.TempDir()
	path := tinyMoEMeasurements(t, dir)
	out := filepath.Join(dir, "split.svg")
	if _, err := runPlot("split", "--soc", vmPrior, "--measurements", path, "-o", out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte("tiny-moe on vm")) || !bytes.Contains(b, []byte(">0.8<")) {
		t.Errorf("the curve is not of tiny-moe out to 0.8:\n%.400s", b)
	}
	// --workload given: its curve, and nothing of it measured.
	if _, err := runPlot("split", "--soc", vmPrior, "--measurements", path, "--workload", "synthetic-moe", "-o", out); err == nil || !strings.Contains(err.Error(), "workload synthetic-moe") {
		t.Errorf("--workload synthetic-moe: %v", err)
	}
}

// tinyMoEMeasurements writes dir/runs.jsonl: token splits of tiny-moe
// (its workload_yaml) at shares 0.2 and 0.8 on the vm prior, measured at
// their predictions ±1%.
func tinyMoEMeasurements(t *testing.T, dir string) string {
	t.Helper()
	yaml, err := os.ReadFile("testdata/tiny-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	soc, err := model.LoadSoCFile(vmPrior)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "runs.jsonl")
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	p := fit.NewPredictor()
	for i, f := range []float64{0.2, 0.8} {
		pl := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "little"}, Fracs: []float64{1 - f, f}, Threads: []int{1, 1}, Poll: 50}
		m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprint("r", i), Kind: measure.Dispatcher, Workload: "tiny-moe",
			WorkloadYAML: string(yaml), Plan: measure.PlanOf(pl), Unit: "t/s", Status: "ok", Samples: []float64{1, 1}}
		v, err := p.Predict(soc, &m)
		if err != nil {
			t.Fatal(err)
		}
		m.Samples = []float64{v * 0.99, v * 1.01}
		m.Summarize()
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
