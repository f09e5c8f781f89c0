package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotHeatmapEngines(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "npu.png")
	out, err := runPlot("heatmap", "--soc", "rk3588-npu", "--engines", "big,npu", "-o", path)
	if err != nil {
		t.Fatal(err)
	}
	if out != "wrote "+path+"\n" {
		t.Errorf("stdout %q", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engines", "big,gpu"}, `no engine "gpu"`},
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engines", "npu,big"}, "accelerator"},
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engines", "big,npu,npu"}, "twice"},
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engines", "big,npu", "--engine-threads", "4,5"}, "--engine-threads"},
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engine-threads", "4,3,2"}, "--engine-threads: 3 values for 2 engines"},
		{[]string{"heatmap", "--soc", "rk3588-npu", "--engines", "big,npu", "--frac", "0.3"}, "--frac: plot heatmap does not take it"},
		{[]string{"split", "--soc", "rk3588-npu", "--engines", "big,npu"}, "plot split draws one share between two CPU engines"},
	} {
		_, err := runPlot(append(tc.args, "-o", filepath.Join(dir, "bad.png"))...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("plot %v: error %v, want one line containing %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("a failed plot wrote its file")
	}
}

func TestReportEngines(t *testing.T) {
	skipShort(t)
	dir := filepath.Join(t.TempDir(), "npu")
	if _, err := runReport("--soc", "rk3588-npu", "--engines", "big,npu", "--frac", "auto", "-o", dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"big+npu", "WIN", "| plan | big share | npu share |", "token split, best", "dispatcher only",
		"90% interval", "npu 0.7", "TOPS", "submit latency", "](heatmap.png)", "engines.npu.submit_us"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md does not mention %q", want)
		}
	}
	links := mdLink.FindAllStringSubmatch(md, -1)
	var names []string
	for _, l := range links {
		names = append(names, l[1])
	}
	if strings.Join(names, " ") != "timeline.png heatmap.png roofline.png threads.png" {
		t.Errorf("image links %v, want the heatmap, the timeline, the roofline and the thread sweep", names)
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
	}
	if !strings.Contains(md, "at the best split") {
		t.Error("report.md does not caption the best split's figures")
	}
	base := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--soc", "rk3588-npu", "--engines", "big,gpu"}, `no engine "gpu"`},
		{[]string{"--soc", "rk3588-npu", "--engines", "big"}, "needs two or more"},
		{[]string{"--soc", "rk3588-npu", "--engine-threads", "4,5"}, "--engine-threads: 5 threads for engine \"little\""},
		{[]string{"--soc", "cix-p1", "--engines", "big,little", "--engine-threads", "4"}, "--engine-threads: 1 values for 2 engines"},
	} {
		_, err := runReport(append(tc.args, "-o", filepath.Join(base, "r"))...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("report %v: error %v, want one line containing %q", tc.args, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("%d entries left behind by failed reports", len(ents))
	}
}

// Three CPU clusters: the shares are found, so the two-engine --frac
// default does not stand in the way.
func TestReportThreeClusters(t *testing.T) {
	skipShort(t)
	dir := filepath.Join(t.TempDir(), "cix")
	if _, err := runReport("--soc", "cix-p1", "--engines", "big,mid,little", "-o", dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"big+mid+little", "](timeline.png)", "](roofline.png)", "](heatmap.png)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.md does not mention %q", want)
		}
	}
}
