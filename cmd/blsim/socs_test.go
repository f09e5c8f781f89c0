package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestSoCsNew: socs new writes the example spec sheet as a file
// of at most 10 lines that names parts, and predict takes it; --output
// writes the same bytes.
func TestSoCsNew(t *testing.T) {
	args := []string{"socs", "new", "--cluster", "4xcortex-a76@2.4", "--cluster", "4xcortex-a55@1.8", "--dram", "lpddr4x-4224x64", "--l3-mib", "3"}
	out, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("socs new: exit %d, %s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n > 10 || !strings.Contains(out, "core: cortex-a76") || !strings.Contains(out, "type: lpddr4x") {
		t.Errorf("socs new printed %d lines:\n%s", n, out)
	}
	s, err := model.ParseSoC([]byte(out), "new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Engines[0].Name != "big" || s.Engines[1].Name != "little" || s.Engines[0].SharedCacheKiB != 3072 || s.DRAM.PeakGBs != 33.8 {
		t.Errorf("resolved: %+v", s)
	}
	file := filepath.Join(t.TempDir(), "board.yaml")
	if _, stderr, code := runCLI(t, append(args, "-o", file)...); code != 0 {
		t.Fatalf("-o: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != out {
		t.Errorf("-o wrote %q, want what it prints", b)
	}
	pred, stderr, code := runCLI(t, "predict", "--soc", file, "--workload", "llama-3.2-3b", "--threads-sweep")
	if code != 0 || !strings.Contains(pred, "pp512") {
		t.Errorf("predict on the new file: exit %d, %s%s", code, pred, stderr)
	}
}

// TestSoCsNewBadInput: each malformed flag is one line naming it.
func TestSoCsNewBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "4cortex-a76@2.4", "--dram", "lpddr4x-4224x64"}, "--cluster: cluster \"4cortex-a76@2.4\": want [NAME=]COUNTxCORE@GHZ"},
		{[]string{"--cluster", "4xcortex-a76", "--dram", "lpddr4x-4224x64"}, "want [NAME=]COUNTxCORE@GHZ"},
		{[]string{"--cluster", "4xcortex-a67@2.4", "--dram", "lpddr4x-4224x64"}, "unknown core \"cortex-a67\" (nearest: "},
		{[]string{"--cluster", "4xcortex-a76@2400", "--dram", "lpddr4x-4224x64"}, "in MHz? 2400 MHz is 2.4 GHz"},
		{[]string{"--cluster", "4xcortex-a76@2.4:0-2", "--dram", "lpddr4x-4224x64"}, "want 4 CPU ids"},
		{[]string{"--cluster", "4xcortex-a76@2.4", "--dram", "lpddr4x-4224"}, "--dram: dram \"lpddr4x-4224\": want TYPE-MTSxBITS"},
		{[]string{"--cluster", "4xcortex-a76@2.4", "--dram", "lpddr9-4224x64"}, "unknown memory type \"lpddr9\""},
		{[]string{"--cluster", "4xcortex-a76@2.4"}, "--dram: required"},
		{[]string{"--cluster", "4xcortex-a76@2.4", "--dram", "lpddr4x-4224x24"}, "not a whole number of lpddr4x's 16-bit channels"},
		{[]string{"--cluster", "4xcortex-a76@2.4", "--dram", "lpddr4x-8533x64"}, "far outside lpddr4x's 1600-4266 MT/s"},
		{[]string{"--dram", "lpddr4x-4224x64"}, "no cluster"},
		{[]string{"--cluster", "a=4xcortex-a76@2.4", "--cluster", "a=4xcortex-a55@1.8", "--dram", "lpddr4x-4224x64"}, "name \"a\" given twice"},
	} {
		_, stderr, code := runCLI(t, append([]string{"socs", "new"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("socs new %v: exit %d, %q; want one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSoCsShowResolved: every value of a preset printed with its source,
// as YAML that parses back to the preset.
func TestSoCsShowResolved(t *testing.T) {
	out, stderr, code := runCLI(t, "socs", "show", "rk3588", "--resolved")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"q4_k: 28 # part cortex-a76: The repacked kernels",
		"clock_ghz: 2.3 # file line",
		"gemv_overlap: 0.28 # part cortex-a55:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("socs show rk3588 --resolved lacks %q", want)
		}
	}
	got, err := model.ParseSoC([]byte(out), "resolved")
	want, _ := presets.SoC("rk3588")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the resolved YAML parses to another SoC (%v)", err)
	}
	// A file is shown as blsim reads it, with or without --resolved.
	file := filepath.Join(t.TempDir(), "board.yaml")
	if err := os.WriteFile(file, []byte("schema: blsim/soc/v1\nname: board\ndram: {type: lpddr4x, bus_bits: 32, mt_s: 4267}\nengines:\n  - {name: big, core: cortex-a76, cores: 4, clock_ghz: 2.4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := runCLI(t, "socs", "show", file); code != 0 || !strings.Contains(out, "peak_gb_s: 17.1 # part lpddr4x") {
		t.Errorf("socs show FILE: exit %d, %s%s", code, out, stderr)
	}
	if out, _, code := runCLI(t, "parts"); code != 0 || !strings.Contains(out, "cortex-a76") || !strings.Contains(out, "lpddr5x") {
		t.Errorf("parts: exit %d, %s", code, out)
	}
	if out, _, code := runCLI(t, "parts", "show", "a76"); code != 0 || !strings.Contains(out, "name: cortex-a76") {
		t.Errorf("parts show a76: exit %d, %s", code, out)
	}
}

// TestSoCsShowResolvedEveryPreset: for every preset, every value `socs
// show NAME --resolved` prints names where it came from (a part, a line
// of the file, or a calibration), but the schema and the name.
func TestSoCsShowResolvedEveryPreset(t *testing.T) {
	for _, n := range presets.SoCNames() {
		out, stderr, code := runCLI(t, "socs", "show", n, "--resolved")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", n, code, stderr)
		}
		values := 0
		for i, line := range strings.Split(out, "\n") {
			l := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			if l == "" || strings.HasPrefix(l, "#") || strings.HasSuffix(l, ":") || strings.HasPrefix(l, "schema:") || strings.HasPrefix(l, "name: "+n) {
				continue
			}
			values++
			_, src, ok := strings.Cut(l, " # ")
			if !ok || !(strings.HasPrefix(src, "part ") || strings.HasPrefix(src, "file line ") || strings.HasPrefix(src, "calibration")) {
				t.Errorf("%s line %d: %q names no source", n, i+1, line)
			}
		}
		if values < 30 {
			t.Errorf("%s: %d values printed:\n%s", n, values, out)
		}
	}
}
