package model

import (
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestParseBad checks that every bad fixture is rejected with a one-line
// *FieldError naming the file, the line and the field.
func TestParseBad(t *testing.T) {
	for _, tc := range []struct {
		file string
		line int    // 0: the error has no line
		path string // "": the error names no field
		msg  string // a fragment of the message
	}{
		{"soc-malformed.yaml", 6, "", "mapping values are not allowed"},
		{"soc-unknown-key-top.yaml", 3, "turbo", "unknown key (known: description, dram, engines"},
		{"soc-unknown-key-engine.yaml", 27, "engines[1].hyperthreads", "unknown key"},
		{"soc-missing-key.yaml", 4, "dram.sharing", "missing required key"},
		{"soc-missing-engine-key.yaml", 23, "engines[1].bandwidth_max_gb_s", "missing required key"},
		{"soc-duplicate-key.yaml", 12, "engines[0].clock_ghz", "key given twice"},
		{"soc-negative-bandwidth.yaml", 16, "engines[0].bandwidth_max_gb_s", "-20 is negative"},
		{"soc-nan.yaml", 11, "engines[0].clock_ghz", "NaN is not a finite number"},
		{"soc-absurd-clock.yaml", 26, "engines[1].clock_ghz", "500 GHz is outside [0.05, 10] GHz for a clock"},
		{"soc-tiny-clock.yaml", 26, "engines[1].clock_ghz", "1e-300 GHz is outside [0.05, 10] GHz for a clock"},
		{"soc-kernel-class-missing.yaml", 27, "engines[1].kernel_ops_per_cycle", `missing kernel class "f32"`},
		{"soc-kernel-class-unknown.yaml", 12, "engines[0].kernel_ops_per_cycle.q3", "unknown kernel class"},
		{"soc-sustained-above-peak.yaml", 5, "dram.sustained_gb_s", "40 exceeds peak_gb_s 34"},
		{"soc-wrong-schema.yaml", 1, "schema", `"blsim/soc/v0" is not "blsim/soc/v1"`},
		{"soc-list-for-mapping.yaml", 3, "dram", "want a mapping of keys, got a list"},
		{"soc-mapping-for-list.yaml", 7, "engines", "want a list, got a mapping"},
		{"soc-wrong-type.yaml", 25, "engines[1].cores", "cannot unmarshal !!str `four` into int"},
		{"soc-bad-uncertainty.yaml", 53, "uncertainty.engines.huge.clock_ghz", `no engine "huge"`},
		{"soc-absorbs-too-many.yaml", 50, "handoff.split_absorbs_graph_splits", "11 is outside [0, 10]"},
		{"soc-empty.yaml", 0, "", "empty document"},
		{"soc-fractional-cores.yaml", 10, "engines[0].cores", `want a whole number, got "4.5"`},
		{"soc-second-document.yaml", 99, "", "a second YAML document"},
		{"wl-top-k-above-experts.yaml", 23, "model.moe.top_k", "300 is outside [1, 256]"},
		{"wl-pattern-unknown-letter.yaml", 5, "model.pattern", "unknown layer kind 'X'"},
		// linear_attention is absent: the error points at its parent, model.
		{"wl-linear-missing.yaml", 3, "model.linear_attention", "pattern has L layers but linear_attention is missing"},
		{"wl-prompt-zero.yaml", 39, "run.prompt_tokens", "0 is outside [1, 1048576]"},
		{"wl-gen-negative.yaml", 42, "run.gen_tokens", "-4 is negative"},
		{"wl-window-missing.yaml", 13, "model.attention.sliding_window", "pattern has S layers but no window"},
		{"wl-unknown-key-nested.yaml", 25, "model.moe.expert_ffm", "unknown key"},
	} {
		t.Run(strings.TrimSuffix(tc.file, ".yaml"), func(t *testing.T) {
			path := filepath.Join("testdata", "bad", tc.file)
			var err error
			if strings.HasPrefix(tc.file, "wl-") {
				_, err = LoadWorkloadFile(path)
			} else {
				_, err = LoadSoCFile(path)
			}
			if err == nil {
				t.Fatal("parsed without error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error has more than one line: %q", msg)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %q is a %T, want *FieldError", msg, err)
			}
			if fe.File != path || fe.Line != tc.line || fe.Path != tc.path {
				t.Errorf("got file %q line %d path %q, want %q %d %q (%s)", fe.File, fe.Line, fe.Path, path, tc.line, tc.path, msg)
			}
			want := path + ":"
			if tc.line > 0 {
				want += strconv.Itoa(tc.line) + ":"
			}
			want += " "
			if tc.path != "" {
				want += tc.path + ": "
			}
			if !strings.HasPrefix(msg, want) {
				t.Errorf("error %q does not start with %q", msg, want)
			}
			if !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("error %q does not say %q", msg, tc.msg)
			}
		})
	}
}

// TestParseBadName: the name given to ParseSoC is what errors name.
func TestParseBadName(t *testing.T) {
	_, err := ParseSoC([]byte("schema: blsim/soc/v1\nname: x\nbogus: 1\n"), "preset x")
	if err == nil || err.Error() != `preset x:3: bogus: unknown key (known: description, dram, engines, handoff, name, provenance, schema, uncertainty)` {
		t.Errorf("got %v", err)
	}
	_, err = ParseSoC([]byte("schema: blsim/soc/v1\n\"a\\nb\": 1\n"), "nl.yaml")
	if err == nil || err.Error() != `nl.yaml:2: "a\nb": unknown key (known: description, dram, engines, handoff, name, provenance, schema, uncertainty)` {
		t.Errorf("newline in key: got %q", err)
	}
	_, err = LoadSoCFile(filepath.Join("testdata", "no-such-file.yaml"))
	if err == nil || !strings.Contains(err.Error(), "no-such-file.yaml") {
		t.Errorf("missing file: got %v", err)
	}
}

func goodFiles(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "good", prefix+"*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no good %s fixtures: %v", prefix, err)
	}
	return files
}

// TestSoCRoundTrip: good profiles parse, and MarshalSoC writes what
// ParseSoC reads back to an equal value.
func TestSoCRoundTrip(t *testing.T) {
	for _, f := range goodFiles(t, "soc-") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := LoadSoCFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := MarshalSoC(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseSoC(b, "marshalled")
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if !reflect.DeepEqual(s, back) {
				t.Errorf("round trip changed the profile:\n got %+v\nwant %+v", back, s)
			}
			again, err := MarshalSoC(back)
			if err != nil || string(again) != string(b) {
				t.Errorf("second marshal differs (%v)", err)
			}
		})
	}
}

// TestWorkloadRoundTrip: good workloads parse, and their YAML encoding
// parses back to an equal value.
func TestWorkloadRoundTrip(t *testing.T) {
	for _, f := range goodFiles(t, "wl-") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w, err := LoadWorkloadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := yaml.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseWorkload(b, "marshalled")
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if !reflect.DeepEqual(w, back) {
				t.Errorf("round trip changed the workload:\n got %+v\nwant %+v", back, w)
			}
		})
	}
}

// TestParseSoCValues spot-checks that values land in the right fields.
func TestParseSoCValues(t *testing.T) {
	s, err := LoadSoCFile(filepath.Join("testdata", "good", "soc-tiny.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"peak", s.DRAM.PeakGBs, 34},
		{"sustained", s.DRAM.SustainedGBs, 21},
		{"engines", float64(len(s.Engines)), 2},
		{"little clock", s.Engines[1].ClockGHz, 1.8},
		{"little f16", s.Engines[1].KernelOpsPerCycle["f16"], 4.5},
		{"big cores", float64(s.Engines[0].Cores), 4},
		{"big expert tile", float64(s.Engines[0].ExpertTokenTile), 1},
		{"absorbs", float64(s.Handoff.SplitAbsorbsGraphSplits), 8},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %g, want %g", tc.name, tc.got, tc.want)
		}
	}
	if s.DRAM.Sharing != "maxmin" || s.Engines[1].Name != "little" {
		t.Errorf("strings: %q %q", s.DRAM.Sharing, s.Engines[1].Name)
	}
}

// TestFieldErrorFormat covers each combination of file, line and path.
func TestFieldErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  FieldError
		want string
	}{
		{"all", FieldError{File: "a.yaml", Line: 3, Path: "dram.peak_gb_s", Msg: "bad"}, "a.yaml:3: dram.peak_gb_s: bad"},
		{"no line", FieldError{File: "a.yaml", Path: "x", Msg: "bad"}, "a.yaml: x: bad"},
		{"no file", FieldError{Line: 3, Path: "x", Msg: "bad"}, "3: x: bad"},
		{"msg only", FieldError{Msg: "bad"}, "bad"},
		{"no path", FieldError{File: "a.yaml", Line: 2, Msg: "bad"}, "a.yaml:2: bad"},
		{"newline in key", FieldError{File: "a.yaml", Line: 2, Path: "dram.a\nb", Msg: "unknown key"}, `a.yaml:2: "dram.a\nb": unknown key`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
