package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/parts"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

// TestVersionCommand: blsim version prints what --version does.
func TestVersionCommand(t *testing.T) {
	out, _, code := runCLI(t, "version")
	flag, _, _ := runCLI(t, "--version")
	if code != 0 || out == "" || out != flag || !strings.HasPrefix(out, "blsim ") {
		t.Errorf("blsim version = %q (exit %d), --version %q", out, code, flag)
	}
}

// TestEveryCommandHasExamples: each command a user runs shows examples in
// its --help.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	if err := cli.AddExamples(root, cli.Examples); err != nil {
		t.Error(err)
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.Hidden && c.Name() != "help" && c.Parent() != nil && c.Parent().Name() != "completion" && c.Example == "" {
			t.Errorf("%s --help has no examples", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// complete runs the shell's completion request and returns the offers.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	out, errs, code := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errs)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			got = append(got, l)
		}
	}
	return got
}

func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"predict", "--soc", ""}, presets.SoCNames()},
		{[]string{"plot", "split", "--soc", "rk35"}, []string{"rk3588", "rk3588-lp5", "rk3588-npu", "rk3576"}},
		{[]string{"report", "--workload", ""}, presets.WorkloadNames()},
		{[]string{"predict", "--split", ""}, []string{"token", "expert", "both"}},
		{[]string{"predict", "--test", ""}, []string{"pp", "tg", "pg"}},
		{[]string{"validate", "--stat", ""}, []string{"median", "best"}},
		{[]string{"plot", ""}, plotKinds},
		{[]string{"socs", "show", ""}, presets.SoCNames()},
		{[]string{"workloads", "show", "qwen"}, []string{"qwen3-30b-a3b", "qwen3.5-35b-a3b"}},
		{[]string{"parts", "show", "cortex-a7"}, []string{"cortex-a76"}},
	} {
		got := complete(t, tc.args...)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("blsim %s<TAB> offers %v, not %q", strings.Join(tc.args, " "), got, w)
			}
		}
	}
	if got := complete(t, "plot", "split", "--soc", "rk35"); slices.Contains(got, "ddr5") {
		t.Errorf("--soc rk35<TAB> offers %v", got)
	}
	if len(parts.Names()) == 0 {
		t.Fatal("no parts")
	}
}

func TestManPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	out, errs, code := runCLI(t, "man", dir)
	if code != 0 {
		t.Fatalf("blsim man: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "man pages into") {
		t.Errorf("blsim man says %q", out)
	}
	for _, page := range []string{"blsim.1", "blsim-predict.1", "blsim-calibrate.1", "blsim-version.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), ".TH \"BLSIM\" \"1\"") {
			t.Errorf("%s is not a man page:\n%.200s", page, b)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "blsim-predict.1"))
	if !strings.Contains(string(b), "EXAMPLE") || !strings.Contains(string(b), "--soc") {
		t.Errorf("blsim-predict.1 lacks its examples or flags")
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "man", file); code != 1 || !strings.Contains(errs, "is a file, not a directory") {
		t.Errorf("blsim man FILE: exit %d, %q", code, errs)
	}
}

// TestMissingFileSaysSo: a file that does not exist is "PATH: no such
// file", whichever flag or argument named it.
func TestMissingFileSaysSo(t *testing.T) {
	dir := t.TempDir()
	missing := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"predict", "--gguf", missing("no.gguf")},
		{"predict", "--workload", missing("no.gguf")},
		{"predict", "--workload", "no.gguf"},
		{"predict", "--soc", missing("no.yaml")},
		{"predict", "--workload", missing("no.yaml")},
		{"validate", "--soc", "rk3588", "--measurements", missing("no.jsonl")},
		{"fit", "--soc", "rk3588", "--measurements", missing("no.jsonl"), "-o", missing("out.yaml")},
		{"plot", "parity", "--measurements", missing("no.jsonl"), "-o", missing("p.png")},
		{"workloads", "from-gguf", missing("no.gguf")},
		{"workloads", "show", "--gguf", missing("no.gguf")},
		{"socs", "show", missing("no.yaml")},
	} {
		_, errs, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(errs, "no.") || !strings.Contains(errs, ": no such file\n") || strings.Contains(errs, "magic") || strings.Contains(errs, "preset") {
			t.Errorf("blsim %s: exit %d, %q; want one line saying no such file", strings.Join(args, " "), code, errs)
		}
	}
}
