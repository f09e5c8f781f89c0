package presets

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestLoadAll: every preset parses, validates and carries its file name as
// its name.
func TestLoadAll(t *testing.T) {
	if len(SoCNames()) < 4 || len(WorkloadNames()) < 4 {
		t.Fatalf("presets: socs %v, workloads %v", SoCNames(), WorkloadNames())
	}
	for _, n := range SoCNames() {
		t.Run("soc/"+n, func(t *testing.T) {
			s, err := SoC(n)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
			if s.Name != n {
				t.Errorf("preset %s is named %q", n, s.Name)
			}
			// A preset of one engine is a chip of one core type (a
			// board or a desktop the public tables time): its engine
			// names a core part.
			if len(s.Engines) < 2 && s.Engines[0].Core == "" {
				t.Errorf("%d engines, with no core part", len(s.Engines))
			}
		})
	}
	for _, n := range WorkloadNames() {
		t.Run("workload/"+n, func(t *testing.T) {
			w, err := Workload(n)
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != n {
				t.Errorf("preset %s is named %q", n, w.Name)
			}
			if w.Run.Ubatches() < 1 || len(w.Ops(0)) == 0 {
				t.Errorf("run %+v gives no ops", w.Run)
			}
		})
	}
}

// TestSoCRoundTrip: each SoC preset survives MarshalSoC -> ParseSoC.
func TestSoCRoundTrip(t *testing.T) {
	for _, n := range SoCNames() {
		s, err := SoC(n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := model.MarshalSoC(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := model.ParseSoC(b, n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("%s: round trip changed the profile", n)
		}
	}
}

// TestEmbeddedMatchesFiles: the embedded presets are the files users copy.
func TestEmbeddedMatchesFiles(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		names []string
		data  func(string) ([]byte, error)
	}{
		{"socs", SoCNames(), SoCData},
		{"workloads", WorkloadNames(), WorkloadData},
	} {
		files, _ := filepath.Glob(filepath.Join(tc.dir, "*.yaml"))
		if len(files) != len(tc.names) {
			t.Errorf("%s: %d files, %d presets", tc.dir, len(files), len(tc.names))
		}
		for _, n := range tc.names {
			want, err := os.ReadFile(filepath.Join(tc.dir, n+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.data(n)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s/%s: embedded data differs (%v)", tc.dir, n, err)
			}
		}
	}
}

func TestUnknownPreset(t *testing.T) {
	for _, tc := range []struct {
		name  string
		load  func(string) error
		kind  string
		known []string
	}{
		{"soc", func(n string) error { _, err := SoC(n); return err }, "soc", SoCNames()},
		{"workload", func(n string) error { _, err := Workload(n); return err }, "workload", WorkloadNames()},
		{"load soc", func(n string) error { _, err := LoadSoC(n); return err }, "soc", SoCNames()},
		{"load workload", func(n string) error { _, err := LoadWorkload(n); return err }, "workload", WorkloadNames()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.load("rk9999")
			if err == nil {
				t.Fatal("unknown preset accepted")
			}
			want := fmt.Sprintf("unknown %s preset %q (have %s)", tc.kind, "rk9999", strings.Join(tc.known, ", "))
			if err.Error() != want {
				t.Errorf("got %q, want %q", err, want)
			}
		})
	}
}

// TestLoadSoCFile: LoadSoC takes a file when given a path, and reports
// errors against that path.
func TestLoadSoCFile(t *testing.T) {
	dir := t.TempDir()
	data, err := SoCData("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "name: rk3588\n", "name: my-board\n", 1)
	file := filepath.Join(dir, "rk3588.yaml")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSoC(file)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-board" {
		t.Errorf("LoadSoC(%s) read %q, not the file", file, s.Name)
	}
	p, err := LoadSoC("rk3588")
	if err != nil || p.Name != "rk3588" {
		t.Errorf("LoadSoC(rk3588) = %v, %v; want the preset", p, err)
	}

	// A file without the .yaml suffix, named by path.
	plain := filepath.Join(dir, "board")
	if err := os.WriteFile(plain, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadSoC(plain); err != nil || s.Name != "my-board" {
		t.Errorf("LoadSoC(%s) = %v, %v", plain, s, err)
	}

	// Errors name the file.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(edited, "clock_ghz: 2.3", "clock_ghz: 500", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSoC(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":") || !strings.Contains(err.Error(), "engines[0].clock_ghz") {
		t.Errorf("LoadSoC(bad) = %v", err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := LoadSoC(missing); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("LoadSoC(missing) = %v", err)
	}
}

func TestLoadWorkloadFile(t *testing.T) {
	data, err := WorkloadData("mixtral-8x7b")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "w.yml")
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "prompt_tokens: 512", "prompt_tokens: 2048", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWorkload(file)
	if err != nil || w.Run.PromptTokens != 2048 {
		t.Fatalf("LoadWorkload(%s) = %+v, %v", file, w, err)
	}
	if w, err := LoadWorkload("mixtral-8x7b"); err != nil || w.Run.PromptTokens != 512 {
		t.Errorf("LoadWorkload(preset) = %v, %v", w, err)
	}
}

func ExampleSoCNames() {
	for _, n := range SoCNames() {
		fmt.Println(n)
	}
	// Output:
	// apple-m1
	// apple-m1-max
	// apple-m2-pro
	// apple-m4
	// apple-m4-pro
	// balanced
	// cix-p1
	// core-ultra-7-155h
	// ddr5
	// dimensity-9300
	// dimensity-9500s
	// i3-1315u
	// i9-13900k
	// jetson-orin
	// pi5
	// qcs6490
	// rk3576
	// rk3588
	// rk3588-lp5
	// rk3588-npu
	// ryzen-7-5700g
	// ryzen-7-6800h
	// ryzen-9-7950x
	// ryzen-ai-9-hx-370
	// sc8280xp
	// snapdragon-8-elite
	// snapdragon-8-gen2
	// snapdragon-8-gen3
	// snapdragon-x-elite
}

func ExampleWorkloadNames() {
	fmt.Println(strings.Join(WorkloadNames(), " "))
	// Output:
	// gpt-oss-20b llama-2-7b llama-3.2-3b mixtral-8x7b phi-3-mini qwen3-30b-a3b qwen3-30b-a3b-q3ks qwen3.5-35b-a3b synthetic-moe synthetic-moe-calib
}
