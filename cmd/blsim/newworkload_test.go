package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadsNew: workloads new builds a model from a preset, a
// config.json or flags, and a scheme; for a model llama-quantize wrote
// from the same config, its YAML and its --show are from-gguf's and show
// --gguf's to the printed digit (but for the lines naming the file); bad
// input is one line naming the key, flag or scheme.
func TestWorkloadsNew(t *testing.T) {
	out, errs, code := runCLI(t, "workloads", "new", "llama-3.1-8b", "--scheme", "Q4_K_M")
	if code != 0 || !strings.Contains(out, "dense_ffn: 14336") || !strings.Contains(errs, "llama-3.1-8b Q4_K_M: 4912898304 bytes of tensors (4.58 GiB") {
		t.Fatalf("new llama-3.1-8b: exit %d\n%s\n%s", code, out, errs)
	}
	dir := filepath.Join("..", "..", "hfconfig", "testdata", "llamacpp")
	for _, m := range []string{"llama-gqa4", "qwen2-384", "phi3", "mixtral", "gemma2"} {
		for _, s := range []string{"Q4_K_M", "Q4_0"} {
			g := filepath.Join(dir, m+"-"+s+".gguf")
			cfg := filepath.Join(dir, m+".json")
			built, _, code1 := runCLI(t, "workloads", "new", "--config", cfg, "--scheme", s)
			read, _, code2 := runCLI(t, "workloads", "from-gguf", g)
			if code1 != 0 || code2 != 0 || dropLines(built, "name:", "description:") != dropLines(read, "name:", "description:") {
				t.Errorf("%s %s: new (exit %d) and from-gguf (exit %d) differ:\n%s\n%s", m, s, code1, code2, built, read)
			}
			shown, _, _ := runCLI(t, "workloads", "new", "--config", cfg, "--scheme", s, "--show")
			file, _, _ := runCLI(t, "workloads", "show", "--gguf", g)
			if a, b := dropLines(shown, m, "header-only"), dropLines(file, m, "header-only"); a != b {
				t.Errorf("%s %s: --show and show --gguf differ:\n%s\n%s", m, s, a, b)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "llama", "--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "512"}, "vocab_size: missing (the vocabulary)"},
		{[]string{"llama-3.1-8b", "--scheme", "Q4_K_X"}, `--scheme: unknown quantization scheme "Q4_K_X" (nearest: Q4_K_S, Q4_K_M`},
		{[]string{"llama-3.1-8b", "--scheme", "IQ2_XS"}, "IQ2_XS: llama-quantize refuses it without an importance matrix"},
		{[]string{"gemma-2-2b", "--experts", "8", "--top-k", "2"}, "num_experts: 8, but llama.cpp's gemma2 has no experts"},
		{[]string{"no-such-model"}, `unknown model preset "no-such-model"`},
	} {
		_, errs, code := runCLI(t, append([]string{"workloads", "new"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("new %v: exit %d, %q; want one line with %q", tc.args, code, errs, tc.want)
		}
	}
}

// dropLines drops the lines containing any of subs.
func dropLines(s string, subs ...string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		drop := false
		for _, sub := range subs {
			drop = drop || strings.Contains(l, sub)
		}
		if !drop {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
