package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestFlagsMeanTheSame: predict, plot and report share their request
// flags with one default and one meaning: --frac auto, a list of shares
// for N engines, --engine-threads without --engines, --prompt and --ubatch at
// least 1, --split both by default.
func TestFlagsMeanTheSame(t *testing.T) {
	skipShort(t)
	cmds := map[string]*cobra.Command{
		"predict": newPredictCmd(io.Discard, io.Discard, nil),
		"plot":    newPlotCmd(io.Discard, io.Discard),
		"report":  newReportCmd(io.Discard, io.Discard),
	}
	for _, flag := range []string{"soc", "workload", "engines", "threads", "big-threads", "little-threads", "split", "frac", "poll", "prompt", "ubatch", "draws"} {
		var defs []string
		for _, name := range []string{"predict", "plot", "report"} {
			f := cmds[name].Flags().Lookup(flag)
			if f == nil {
				t.Errorf("%s has no --%s", name, flag)
				continue
			}
			defs = append(defs, f.DefValue+" / "+f.Usage)
		}
		if len(defs) == 3 && (defs[0] != defs[1] || defs[1] != defs[2]) {
			t.Errorf("--%s differs between predict, plot and report: %q", flag, defs)
		}
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"predict", "--frac", "auto", "--draws", "2"},
		{"predict", "--engine-threads", "4,2", "--draws", "2"},
		{"plot", "timeline", "--frac", "auto", "--draws", "2", "-o", filepath.Join(dir, "t.svg")},
		{"plot", "roofline", "--engine-threads", "4,2", "--draws", "2", "-o", filepath.Join(dir, "r.svg")},
		{"plot", "timeline", "--soc", "cix-p1", "--engines", "big,mid,little", "--frac", "0.3,0.1", "--draws", "2", "-o", filepath.Join(dir, "t3.svg")},
		{"report", "--frac", "auto", "--engine-threads", "4,2", "--draws", "2", "-o", filepath.Join(dir, "rep")},
	} {
		if _, errs, code := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	for _, name := range []string{"predict", "plot timeline", "report"} {
		for _, bad := range [][]string{{"--prompt", "0"}, {"--ubatch", "0"}, {"--frac", "1.5"}, {"--split", "all"}} {
			args := append(strings.Fields(name), bad...)
			args = append(args, "-o", filepath.Join(dir, "bad.png"))
			if name == "predict" {
				args = args[:len(args)-2]
			}
			_, errs, code := runCLI(t, args...)
			if code == 0 || !strings.Contains(errs, bad[0]+":") {
				t.Errorf("%v: exit %d, stderr %q: want an error naming %s", args, code, errs, bad[0])
			}
		}
	}
}
