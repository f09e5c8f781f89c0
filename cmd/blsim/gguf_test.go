package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestGGUFWorkloads: a GGUF model file is a workload wherever one is
// taken (--gguf, or --workload with the file), from-gguf writes the YAML
// that predicts the same, and show --gguf prints the model as blsim sees
// it; a file that is not a GGUF is a one-line error.
func TestGGUFWorkloads(t *testing.T) {
	g := filepath.Join("..", "..", "gguf", "testdata", "qwen3moe.gguf")
	dir := t.TempDir()
	y := filepath.Join(dir, "w.yaml")
	out, errs, code := runCLI(t, "workloads", "from-gguf", g, "-o", y)
	if code != 0 || out != "wrote "+y+"\n" || !strings.Contains(errs, "note: ") {
		t.Fatalf("from-gguf: exit %d %q %q", code, out, errs)
	}
	w, err := model.LoadWorkloadFile(y)
	if err != nil {
		t.Fatal(err)
	}
	if w.Model.MoE.Experts != 4 || w.Model.MoE.TopK != 2 || w.Model.Types["experts_gate_up"] == "" {
		t.Errorf("workload %+v", w.Model)
	}
	var got []string
	for _, args := range [][]string{
		{"predict", "--gguf", g, "--draws", "2"},
		{"predict", "--workload", g, "--draws", "2"},
		{"predict", "--workload", y, "--draws", "2"},
	} {
		out, errs, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		got = append(got, out)
	}
	if got[0] != got[1] || got[1] != got[2] {
		t.Errorf("--gguf, --workload FILE.gguf and its YAML predict differently:\n%s\n%s\n%s", got[0], got[1], got[2])
	}
	out, _, code = runCLI(t, "workloads", "show", "--gguf", g, "--ubatch", "8")
	for _, want := range []string{"qwen3moe", "experts: 4 routed, top-2", "types and bytes by tensor class"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show --gguf: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	// DeepSeek's latent attention, written out with its fields.
	ds := filepath.Join("..", "..", "gguf", "testdata", "deepseek2.gguf")
	if out, errs, code := runCLI(t, "workloads", "from-gguf", ds); code != 0 || !strings.Contains(out, "kv_lora_rank: 32") || !strings.Contains(out, "rope_dim: 8") {
		t.Errorf("from-gguf deepseek2: exit %d %s\n%s", code, errs, out)
	}
	notGGUF := filepath.Join(dir, "x.gguf")
	if err := os.WriteFile(notGGUF, []byte("schema: blsim/workload/v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--gguf", notGGUF}, "is not a GGUF model file"},
		{[]string{"predict", "--gguf", g, "--workload", "synthetic-moe"}, "[gguf workload] were all set"},
		{[]string{"workloads", "from-gguf", g, "-o", g}, "is also an input"},
		{[]string{"workloads", "show", "qwen3-30b-a3b", "--gguf", g}, "not both"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q: want one line containing %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestPredictTokenGeneration: --gen and --depth make llama-bench's tg and
// pp+tg tests; --prompt 0 needs --gen; a token split of tg is refused.
func TestPredictTokenGeneration(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--prompt", "0", "--gen", "32", "--draws", "2")
	if code != 0 || !strings.Contains(out, "qwen3.5-35b-a3b on rk3588: tg32, big 4 + little 4 threads") || strings.Contains(out, "token split") {
		t.Errorf("tg32: exit %d %s\n%s", code, errs, out)
	}
	out, _, code = runCLI(t, "predict", "--test", "pg", "--gen", "16", "--depth", "512", "--draws", "2")
	if code != 0 || !strings.Contains(out, "pp512+tg16 @ d512 (ubatch 512)") {
		t.Errorf("pp+tg: exit %d\n%s", code, out)
	}
	// -n beside the prompt is llama-bench's: a pp row and a tg row.
	out, _, code = runCLI(t, "predict", "-n", "16", "--depth", "512", "--draws", "2", "-o", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 ||
		!strings.Contains(lines[1], ",pp512 @ d512,") || !strings.Contains(lines[2], ",tg16 @ d512,") {
		t.Errorf("-n 16: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--prompt", "0"}, "--prompt: 0: want at least 1 (0 only with --gen"},
		{[]string{"predict", "--prompt", "0", "--gen", "8", "--split", "token"}, "--split: tg8 has graphs of one token"},
		{[]string{"predict", "--gen", "-1"}, "--gen: -1 is negative"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestDensePresets: the dense presets predict pp and tg, and say that a
// split of a dense model moves nothing.
func TestDensePresets(t *testing.T) {
	for _, w := range []string{"phi-3-mini", "llama-3.2-3b", "llama-2-7b"} {
		out, errs, code := runCLI(t, "predict", "--workload", w, "--draws", "2")
		if code != 0 || !strings.Contains(out, w+" on rk3588: pp512") || !strings.Contains(errs, "is dense: it has no routed-expert ops") {
			t.Errorf("%s: exit %d, stderr %q\n%s", w, code, errs, out)
		}
		if _, errs, code := runCLI(t, "predict", "--workload", w, "--draws", "2", "--prompt", "0", "--gen", "16"); code != 0 {
			t.Errorf("%s tg16: exit %d %s", w, code, errs)
		}
	}
}

// TestThreadsSweep: predict --threads-sweep prints every pool and what to
// run, and refuses the flags it does not use.
func TestThreadsSweep(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--threads-sweep", "--gen", "16")
	if code != 0 || !strings.Contains(out, "prefill: -t 4 --cpu-mask 0xf0 --cpu-strict 1 (4 on big)") || !strings.Contains(out, "every core (-t 8)") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	// A profile without CPU ids names the clusters the mask must cover.
	y := filepath.Join(t.TempDir(), "nocpus.yaml")
	data, err := presets.SoCData("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.NewReplacer("    cpus: [4, 5, 6, 7]\n", "", "    cpus: [0, 1, 2, 3]\n", "").Replace(string(data)))
	if err := os.WriteFile(y, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCLI(t, "predict", "--threads-sweep", "--gen", "16", "--soc", y); code != 0 || !strings.Contains(out, "prefill: -t 4, --cpu-mask of big's cores (4 on big)") {
		t.Errorf("without cpus: exit %d %s\n%s", code, errs, out)
	}
	png := filepath.Join(t.TempDir(), "threads.png")
	if out, errs, code := runCLI(t, "plot", "threads", "--gen", "8", "-o", png); code != 0 || out != "wrote "+png+"\n" {
		t.Errorf("plot threads: exit %d %q %q", code, out, errs)
	}
	if _, errs, code := runCLI(t, "plot", "threads", "--engines", "big,little", "-o", png); code == 0 || !strings.Contains(errs, "--engines: plot threads does not take it") {
		t.Errorf("plot threads --engines: exit %d %q", code, errs)
	}
	if _, errs, code := runCLI(t, "predict", "--threads-sweep", "--frac", "0.2"); code == 0 || !strings.Contains(errs, "--frac: --threads-sweep tries every thread count") {
		t.Errorf("--frac: exit %d %q", code, errs)
	}
	// On Android and macOS ggml sets no affinity: the advice says so, and
	// gives taskset's mask on Android.
	for pol, want := range map[string]string{"android": "android: ggml sets no thread affinity there, so -C and --cpu-strict do nothing; pin the process for decode instead: taskset 0xf0 llama-cli -t 4",
		"macos": "macos: no thread affinity there", "linux": ""} {
		out, errs, code := runCLI(t, "predict", "--threads-sweep", "--gen", "16", "--placement", pol)
		if code != 0 || want != "" && !strings.Contains(out, want) || want == "" && strings.Contains(out, "no thread affinity") {
			t.Errorf("--placement %s: exit %d %s: want %q in\n%s", pol, code, errs, want, out)
		}
		// Where masks do nothing, no advice line gives one: the pinned
		// pool is a taskset on Android, and nothing on macOS.
		pins := pol == "linux"
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "prefill:") && !strings.HasPrefix(line, "decode:") && !strings.HasPrefix(line, "llama-cli") {
				continue
			}
			masked := strings.Contains(line, "--cpu-mask") || strings.Contains(line, " -C ") || strings.Contains(line, " -Cb ") || strings.Contains(line, "--cpu-strict")
			if masked != pins {
				t.Errorf("--placement %s: a mask in the advice is %v, want %v: %s", pol, masked, pins, line)
			}
		}
	}
	if out, _, _ := runCLI(t, "predict", "--threads-sweep", "--gen", "16", "--placement", "android"); !strings.Contains(out, "prefill: -t 4 under taskset 0xf0 (4 on big)") ||
		!strings.Contains(out, "llama-cli, llama-server: -t 4 (decode), -tb 4 (prefill)") {
		t.Errorf("--placement android: the pinned pool is not a CPU set:\n%s", out)
	}
	// The advice is the best point estimate, and says whether its gain over
	// the first cluster's best is sure (a WIN) or not (measure both).
	for _, c := range []struct{ args, want []string }{
		{[]string{"--soc", "cix-p1", "--workload", "llama-3.2-3b"}, []string{"prefill: -t 8 --cpu-mask 0xfe1 --cpu-strict 1 (4 on big, 4 on mid): ", "PARITY over -t 4 (big): not sure, the interval includes 0: measure -t 4 and -t 8;", "-tb 8 -Cb 0xfe1"}},
		{[]string{"--workload", "phi-3-mini"}, []string{"prefill: -t 8 --cpu-mask 0xff --cpu-strict 1 (4 on big, 4 on little): ", "WIN over -t 4 (big): sure;"}},
	} {
		out, errs, code := runCLI(t, append([]string{"predict", "--threads-sweep", "--gen", "8"}, c.args...)...)
		for _, want := range c.want {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("%v: exit %d %s: no %q in\n%s", c.args, code, errs, want, out)
			}
		}
	}
	// A hybrid SMT chip: every hardware thread, the OS's placement named,
	// and -t and -tb apart.
	out, errs, code = runCLI(t, "predict", "--threads-sweep", "--gen", "8", "--soc", "i9-13900k", "--workload", "llama-2-7b", "--placement", "windows")
	for _, want := range []string{"big+little+smt  32", "unpinned  32", "alone gives", "(windows places", "llama-cli, llama-server: -t ", " -tb "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("13900K sweep: exit %d %s: no %q in\n%s", code, errs, want, out)
		}
	}
}
