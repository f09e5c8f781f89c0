package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckPublic: check public prints the scored table with its targets,
// as Markdown, CSV or JSON, for every family or one; a bad family or
// format is one line.
func TestCheckPublic(t *testing.T) {
	skipShort(t)
	out, errs, code := runCLI(t, "check", "public")
	for _, want := range []string{"| RK-3 | ggml-org/llama.cpp#7176 | rk3588 | phi-3-mini IQ4_XS (imatrix) | 8 | big=4,little=4 | pp6 |", "not expressible: llama-v3-314m's config is not public", "Targets over the scored rows", "absolute t/s MAPE %"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("check public: exit %d, %s; output lacks %q:\n%s", code, errs, want, out)
		}
	}
	out, _, code = runCLI(t, "check", "public", "--family", "pi", "-o", "json")
	var doc struct {
		Schema string `json:"schema"`
		Rows   []struct {
			ID     string `json:"id"`
			Family string `json:"family"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || doc.Schema != "blsim/public-check/v1" || len(doc.Rows) < 10 {
		t.Fatalf("json: exit %d, %v, %+v", code, err, doc)
	}
	for _, r := range doc.Rows {
		if r.Family != "pi" {
			t.Errorf("--family pi printed %s of %s", r.ID, r.Family)
		}
	}
	if out, _, code := runCLI(t, "check", "public", "--family", "amd", "-o", "csv"); code != 0 || !strings.HasPrefix(out, "id,family,source") || !strings.Contains(out, "SMT-7/t16") {
		t.Errorf("csv: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "check", "public", "--soc", "i9-13900k", "--set", "engines.*.gemv_overlap=0.73")
	for _, want := range []string{"What-if: engines.*.gemv_overlap=0.73 on every row's SoC", "| INT-1/t8 |"} {
		if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "| RK-") {
			t.Errorf("--soc i9-13900k --set: exit %d; output lacks %q or has other SoCs' rows:\n%s", code, want, out)
		}
	}
	for _, args := range [][]string{{"--family", "bogus"}, {"-o", "xml"}, {"--soc", "pi6"}, {"--set", "gemv_overlap"}, {"--set", "engines.*.gemv_overlap=2"}} {
		_, errs, code := runCLI(t, append([]string{"check", "public"}, args...)...)
		if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
