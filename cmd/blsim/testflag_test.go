package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestFlag: --test pp|tg|pg picks llama-bench's test in predict, plot
// and report; a tg test predicts the expert split alone and says so once;
// a flag the test cannot use is an error naming it, never ignored.
func TestTestFlag(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		args []string
		head string // the table's first line has it
		err  string // stderr has it
	}{
		{[]string{"--test", "pp"}, "pp512 (ubatch 512)", ""},
		{[]string{"--test", "tg"}, ": tg128,", "only the expert split is predicted"},
		{[]string{"--test", "tg", "--gen", "32"}, ": tg32,", "only the expert split is predicted"},
		{[]string{"--test", "pg", "--gen", "16", "--prompt", "256"}, "pp256+tg16 (ubatch 512)", "only the expert split is predicted"},
		{[]string{"--test", "tg", "--prompt", "0"}, ": tg128,", ""},
	} {
		out, errs, code := runCLI(t, append([]string{"predict", "--draws", "4"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, tc.head) {
			t.Errorf("%v: first line %q, want %q", tc.args, first, tc.head)
		}
		if tc.err != "" && strings.Count(errs, tc.err) != 1 {
			t.Errorf("%v: stderr %q, want %q once", tc.args, errs, tc.err)
		}
		if strings.Contains(tc.head, "tg") && strings.Contains(out, "token split") {
			t.Errorf("%v: a one-token test predicts a token split:\n%s", tc.args, out)
		}
	}
	// Without --test, the seed's pp512 prints no word about modes.
	if _, errs, code := runCLI(t, "predict", "--draws", "4"); code != 0 || errs != "" {
		t.Errorf("predict: exit %d, stderr %q", code, errs)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"predict", "--test", "tg", "--prompt", "64"}, "--test: tg: a tg test has no prompt, but 64 prompt tokens were asked for"},
		{[]string{"predict", "--test", "pp", "--gen", "8"}, "--test: pp: a pp test generates no tokens, but 8 were asked for"},
		{[]string{"predict", "--test", "tg128"}, `--test: "tg128": want pp, tg or pg`},
		{[]string{"predict", "--test", "tg", "--threads-sweep"}, "--test: --threads-sweep tries every thread count on every cluster, for pp and tg both"},
		{[]string{"plot", "threads", "--test", "tg", "-o", filepath.Join(t.TempDir(), "t.png")}, "--test: plot threads does not take it"},
		{[]string{"plot", "parity", "--test", "tg", "-o", filepath.Join(t.TempDir(), "p.png")}, "--test: plot parity does not take it"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.err) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, errs, tc.err)
		}
	}
	// A tg report: a decode title, the thread sweep, and the seed's pp512
	// measurements still compared on their own test.
	dir := filepath.Join(t.TempDir(), "rep")
	if _, err := runReport("--test", "tg", "-o", dir, "--draws", "4"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"MoE-decode split", "tg128", "## Threads and decode", "| big | 4 | 0xf0 | 26.26 |", "](threads.png)", "Native decode is",
		"| native poll=50 | 26.26 | – | 26.26 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("tg report does not mention %q", want)
		}
	}
	if strings.Contains(md, "At poll 0 the model predicts") {
		t.Error("a tg report names the poll-0 token split, which a one-token test has not")
	}
	// The heatmap takes a test too.
	if _, errs, code := runCLI(t, "plot", "heatmap", "--test", "tg", "--draws", "4", "-o", filepath.Join(t.TempDir(), "h.png")); code != 0 {
		t.Errorf("plot heatmap --test tg: exit %d: %s", code, errs)
	}
}
