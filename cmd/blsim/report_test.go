package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func runReport(args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newReportCmd(&out, io.Discard)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

var mdLink = regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`)

func TestReportRK3588(t *testing.T) {
	skipShort(t)
	dir := filepath.Join(t.TempDir(), "rep")
	t0 := time.Now()
	out, err := runReport("-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report for rk3588 rendered in %v", time.Since(t0))
	if want := "wrote " + filepath.Join(dir, "report.md") + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"26.26", "PARITY", "26.24", "Exp-2026-08-17", "MAPE", "poll=0", "Provenance", "± σ",
		"| native (big only) |", "token split, requested", "token split, best", "balance point",
		"## Threads and decode", "| big | 4 | 0xf0 | 26.26 |", "prefill: -t 4 --cpu-mask 0xf0", "decode: -t 4 --cpu-mask 0xf0"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md does not mention %q", want)
		}
	}
	links := mdLink.FindAllStringSubmatch(md, -1)
	if len(links) != 6 {
		t.Errorf("%d image links, want 6", len(links))
	}
	for _, l := range links {
		if filepath.IsAbs(l[1]) || strings.Contains(l[1], "..") {
			t.Errorf("link %s is not relative to the folder", l[1])
		}
		if st, err := os.Stat(filepath.Join(dir, l[1])); err != nil || st.Size() == 0 {
			t.Errorf("link %s: %v", l[1], err)
		}
	}
	// Nothing but the report in the folder, no temporaries next to it.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 7 {
		t.Errorf("%d files in the report folder, want 7", len(ents))
	}
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Errorf("%d entries next to the report, want 1 (no temporaries)", len(ents))
	}
	// A rerun replaces the previous report.
	if _, err := runReport("-o", dir); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !bytes.Equal(b, b2) {
		t.Error("two reports differ")
	}
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Errorf("%d entries next to the report after a rerun, want 1", len(ents))
	}
}

func TestReportNoMeasurements(t *testing.T) {
	skipShort(t)
	dir := filepath.Join(t.TempDir(), "ddr5")
	if _, err := runReport("--soc", "ddr5", "-o", dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if bytes.Contains(md, []byte("parity.png")) || !bytes.Contains(md, []byte("WIN")) {
		t.Errorf("ddr5 report: want WIN and no parity plot")
	}
	if _, err := os.Stat(filepath.Join(dir, "parity.png")); err == nil {
		t.Error("parity.png written without measurements")
	}
}

func TestReportErrors(t *testing.T) {
	base := t.TempDir()
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	notReport := filepath.Join(base, "mine")
	if err := os.Mkdir(notReport, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notReport, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(base, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"schema":"blsim/measurement/v1","id":"a","kind":"reported","soc":"ddr5","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","median":29,"cv":0,"status":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{nil, "-o DIR is required"},
		{[]string{"-o", filepath.Join(base, "no", "such", "dir")}, "no such file"},
		{[]string{"-o", notReport}, "notes.txt"},
		{[]string{"-o", file}, "not a folder"},
		{[]string{"--measurements", other, "-o", filepath.Join(base, "x")}, "are for soc ddr5, not rk3588"},
		{[]string{"--soc", "nosuch", "-o", filepath.Join(base, "x")}, "--soc"},
		{[]string{"--frac", "2", "-o", filepath.Join(base, "x")}, "--frac"},
		{[]string{"-o", filepath.Join(file, "rep")}, "not a directory"},
		{[]string{"--date", "2026-13-01", "-o", filepath.Join(base, "x")}, "--date: \"2026-13-01\" is not a day YYYY-MM-DD"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-o", filepath.Join(ro, "rep")}, "permission denied"})
	}
	for _, tc := range cases {
		_, err := runReport(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("report %v: error %v, want one containing %q", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("report %v: error is not one line: %q", tc.args, err)
		}
	}
	ents, _ := os.ReadDir(base)
	if len(ents) != 4 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("entries %v: a failed report left something behind", names)
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("%d entries in the read-only folder", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(notReport, "notes.txt")); string(b) != "keep" {
		t.Error("a foreign folder was touched")
	}
}

// TestReportFailureLeavesNothing fails a run after its temporary folder
// exists (a measurement whose plan names an engine the SoC lacks fails at
// prediction time), and in a read-only folder when not root.
func TestReportFailureLeavesNothing(t *testing.T) {
	base := t.TempDir()
	ms := filepath.Join(t.TempDir(), "bad.jsonl")
	line := `{"schema":"blsim/measurement/v1","id":"a","kind":"reported","soc":"rk3588","plan":{"mode":"token","engines":["big","npu"],"fracs":[0.9,0.1],"threads":[4,4],"poll":50},"unit":"t/s","median":26,"cv":0,"status":"ok"}` + "\n"
	if err := os.WriteFile(ms, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runReport("--measurements", ms, "-o", filepath.Join(base, "rep"))
	if err == nil || !strings.Contains(err.Error(), "npu") {
		t.Fatalf("error %v, want one naming the unknown engine", err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("%d entries left after a failed report", len(ents))
	}
	if os.Geteuid() == 0 {
		return // root ignores folder permissions
	}
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	if _, err := runReport("-o", filepath.Join(ro, "rep")); err == nil {
		t.Fatal("no error in a read-only folder")
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("%d entries left", len(ents))
	}
}

// BenchmarkReport measures a whole report for the default preset:
// go test ./cmd/blsim -run XXX -bench Report -cpu 2
func BenchmarkReport(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		if _, err := runReport("-o", filepath.Join(dir, "rep")); err != nil {
			b.Fatal(err)
		}
	}
}

// A grid measured in rounds is one parity point per configuration, merged
// by --stat: the 288 runs of the recorded VM grid are 36 configurations.
func TestReportMergesRounds(t *testing.T) {
	skipShort(t)
	grid := filepath.Join("..", "..", "calibrate", "fit", "testdata", "vm-bench-grid.jsonl")
	soc := filepath.Join("..", "..", "calibrate", "fit", "testdata", "vm-prior.yaml")
	mape := map[string]string{}
	for _, stat := range []string{"median", "best"} {
		dir := filepath.Join(t.TempDir(), "r")
		if _, err := runReport("--soc", soc, "--workload", "synthetic-moe", "--measurements", grid, "--stat", stat, "-o", dir); err != nil {
			t.Fatalf("%s: %v", stat, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), "Against 36 measured configurations")
		if i < 0 {
			t.Fatalf("%s: report.md does not count 36 configurations:\n%s", stat, b)
		}
		mape[stat] = string(b[i : i+120])
	}
	if mape["median"] == mape["best"] {
		t.Errorf("--stat changed nothing: %q", mape["best"])
	}
	out := filepath.Join(t.TempDir(), "p.png")
	if _, err := runPlot("parity", "--soc", soc, "--workload", "synthetic-moe", "--measurements", grid, "--stat", "mean", "-o", out); err == nil || !strings.Contains(err.Error(), "--stat") {
		t.Errorf("plot parity --stat mean: %v", err)
	}
}
