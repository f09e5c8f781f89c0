package main

import (
	"bytes"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/model"
)

// needTwoCPUs skips unless CPUs 0 and 1 are usable (the bench defaults).
func needTwoCPUs(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("bench needs Linux")
	}
	allowed, err := probe.AllowedCPUs()
	if err != nil || !slices.Contains(allowed, 0) || !slices.Contains(allowed, 1) {
		t.Skipf("cpus 0 and 1 not usable: %v %v", allowed, err)
	}
}

func runBench(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newBenchCmd(&out, &errb)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

func parseOne(t *testing.T, out string, f llamabench.Format) llamabench.Record {
	t.Helper()
	recs, errs := llamabench.Parse(strings.NewReader(out), "bench", f)
	if len(errs) > 0 || len(recs) != 1 {
		t.Fatalf("parse: %d records, errors %v\n%s", len(recs), errs, out)
	}
	return recs[0]
}

func TestBenchJSONL(t *testing.T) {
	skipShort(t)
	needTwoCPUs(t)
	out, err := runBench(t, "--cluster", "big=1", "--cluster", "little=0", "--split", "token", "--frac", "0.3",
		"--poll", "0", "-r", "2", "-o", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one jsonl line:\n%s", out)
	}
	rec := parseOne(t, out, llamabench.JSONL)
	if rec.AvgTS <= 0 || rec.AvgNS <= 0 || len(rec.SamplesNS) != 2 || len(rec.SamplesTS) != 2 {
		t.Fatalf("record %+v", rec)
	}
	if rec.ModelFilename != "synthetic-moe" || rec.NPrompt != 64 || rec.NGen != 0 || rec.NUbatch != 64 ||
		rec.NThreads != 1 || rec.Poll != 0 || rec.CPUMask != "0x3" || rec.BuildCommit != "blsim" || rec.TestTime.IsZero() {
		t.Fatalf("record %+v", rec)
	}
	if rec.Fields["bl_split"] != "token" || rec.Fields["bl_little_frac"] != "0.3" {
		t.Fatalf("fields %v", rec.Fields)
	}
}

func TestBenchMarkdownNative(t *testing.T) {
	needTwoCPUs(t)
	out, err := runBench(t, "-r", "1", "--big-threads", "1")
	if err != nil {
		t.Fatal(err)
	}
	rec := parseOne(t, out, llamabench.Markdown)
	if rec.AvgTS <= 0 || rec.NPrompt != 64 {
		t.Fatalf("record %+v\n%s", rec, out)
	}
	if !strings.Contains(out, "pp64") {
		t.Fatalf("no pp64 test:\n%s", out)
	}
}

func TestBenchEnvOverridesFlags(t *testing.T) {
	needTwoCPUs(t)
	t.Setenv("ORK_MOE_BIGLITTLE", "1")
	t.Setenv("ORK_BL_SPLIT", "expert")
	t.Setenv("ORK_BL_LITTLE_FRAC", "0.25")
	t.Setenv("ORK_BL_POLL", "7")
	out, err := runBench(t, "--split", "native", "--frac", "0.5", "--poll", "50", "-r", "1", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	rec := parseOne(t, out, llamabench.JSON)
	if rec.Poll != 7 || rec.Fields["bl_split"] != "expert" || rec.Fields["bl_little_frac"] != "0.25" {
		t.Fatalf("env not applied: poll %d, fields %v", rec.Poll, rec.Fields)
	}
}

func TestBenchResolveEnv(t *testing.T) {
	two := func() ([]int, error) { return []int{0, 1}, nil }
	for _, tc := range []struct {
		env  map[string]string
		args benchOptions
		mode model.Mode
		frac float64
		poll int
		thr  []int
	}{
		{map[string]string{"ORK_MOE_BIGLITTLE": "0"}, benchOptions{Knobs: dispatch.Knobs{Split: "token"}}, model.Native, 1, 50, []int{1}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "1"}, benchOptions{Knobs: dispatch.Knobs{Split: "native"}}, model.TokenSplit, 0.12, 50, []int{1, 1}},
		{map[string]string{"ORK_BL_SPLIT": "expert", "ORK_BL_LITTLE_FRAC": "0.4"}, benchOptions{Knobs: dispatch.Knobs{Split: "token"}}, model.ExpertSplit, 0.4, 50, []int{1, 1}},
		// As in the fork (and a grid's records), the split knob turns no split on.
		{map[string]string{"ORK_BL_SPLIT": "expert", "ORK_BL_LITTLE_FRAC": "0.4"}, benchOptions{Knobs: dispatch.Knobs{Split: "native"}}, model.Native, 1, 50, []int{1}},
		{map[string]string{"ORK_MOE_BIGLITTLE": "0", "ORK_BL_SPLIT": "expert"}, benchOptions{Knobs: dispatch.Knobs{Split: "token"}}, model.Native, 1, 50, []int{1}},
		{map[string]string{"ORK_BL_POLL": "0", "ORK_BL_BIG_THREADS": "1", "ORK_BL_LITTLE_THREADS": "1"}, benchOptions{Knobs: dispatch.Knobs{Split: "token", Poll: 100}}, model.TokenSplit, 0.12, 0, []int{1, 1}},
		{map[string]string{"ORK_BL_POLL": ""}, benchOptions{Knobs: dispatch.Knobs{Split: "native"}}, model.Native, 1, 50, []int{1}},
	} {
		o := tc.args
		if o.Poll == 0 {
			o.Poll = 50
		}
		o.Frac, o.Reps, o.Output, o.Workload = 0.12, 1, "md", "synthetic-moe"
		o.allowedCPUs = two
		o.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		s, err := o.resolve()
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		p := s.plan
		if p.Mode != tc.mode || p.Poll != tc.poll || !slices.Equal(p.Threads, tc.thr) || p.Fracs[len(p.Fracs)-1] != tc.frac {
			t.Errorf("%v: plan %v %v", tc.env, p, p.Fracs)
		}
		if !slices.Equal(s.cpus["big"], []int{1}) || len(p.Threads) == 2 && !slices.Equal(s.cpus["little"], []int{0}) {
			t.Errorf("%v: cpus %v", tc.env, s.cpus)
		}
	}
}

func TestBenchErrors(t *testing.T) {
	two := func() ([]int, error) { return []int{0, 1}, nil }
	four := func() ([]int, error) { return []int{0, 1, 2, 3}, nil }
	for _, tc := range []struct {
		env     map[string]string
		allowed func() ([]int, error)
		args    []string
		want    string
	}{
		{map[string]string{"ORK_BL_POLL": "abc"}, two, nil, `ORK_BL_POLL="abc"`},
		{map[string]string{"ORK_BL_POLL": "101"}, two, nil, "ORK_BL_POLL"},
		{map[string]string{"ORK_BL_LITTLE_FRAC": "1.5"}, two, nil, "ORK_BL_LITTLE_FRAC"},
		{map[string]string{"ORK_BL_SPLIT": "layer"}, two, nil, "ORK_BL_SPLIT"},
		{map[string]string{"ORK_MOE_BIGLITTLE": "2"}, two, nil, "ORK_MOE_BIGLITTLE"},
		{map[string]string{"ORK_BL_LITTLE_THREADS": "0"}, two, nil, "ORK_BL_LITTLE_THREADS"},
		{map[string]string{"ORK_BL_BIG_THREADS": "3"}, two, nil, "--big-threads 3"},
		{nil, two, []string{"--split", "layer"}, "--split"},
		{nil, two, []string{"--frac", "2"}, "--frac"},
		{nil, two, []string{"--poll", "-1"}, "--poll"},
		{nil, two, []string{"-o", "xml"}, "-o"},
		{nil, two, []string{"-o", "sql"}, "-o"},
		{nil, two, []string{"-r", "0"}, "-r"},
		{nil, two, []string{"--workload", "nope"}, "--workload"},
		{nil, two, []string{"--cluster", "big"}, "--cluster"},
		{nil, two, []string{"--cluster", "big=1", "--cluster", "little=1"}, "cpu 1 is already in cluster big"},
		{nil, two, []string{"--cluster", "big=1", "--split", "token"}, "needs two clusters"},
		{nil, two, []string{"--cluster", "big=0-1", "--little-threads", "3", "--cluster", "little=2", "--split", "token"}, "--little-threads 3"},
		{nil, four, nil, "--cluster: required"},
	} {
		env := tc.env
		o := &benchOptions{allowedCPUs: tc.allowed, lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		var out bytes.Buffer
		cmd := benchCmd(o, &out, &out, func(o *benchOptions) error { _, err := o.resolve(); return err })
		cmd.SetArgs(tc.args)
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %v: error %v, want one line with %q", tc.env, tc.args, err, tc.want)
		}
	}
}
