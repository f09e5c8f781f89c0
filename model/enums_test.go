package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestParseBadEnum: a value of a typed enum outside its list is refused
// where the profile is parsed, with one line naming the file, the line,
// the key and the known names.
func TestParseBadEnum(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		path, msg      string // the error is "npu.yaml:LINE: PATH: MSG", LINE that of old
	}{
		{"engine kind", "kind: npu", "kind: gpu",
			"engines[2].kind", `"gpu" is not an engine kind (known: cpu, npu)`},
		{"engine kind empty", "kind: npu", `kind: ""`,
			"engines[2].kind", `"" is not an engine kind (known: cpu, npu)`},
		{"engine kind upper case", "kind: npu", "kind: NPU",
			"engines[2].kind", `"NPU" is not an engine kind (known: cpu, npu)`},
		{"sharing policy", "sharing: maxmin", "sharing: fair",
			"dram.sharing", `"fair" is not a sharing policy (known: maxmin, proportional)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := string(npuYAML(t, func(s string) string { return s }))
			line := strings.Count(good[:strings.Index(good, tc.old)], "\n") + 1
			_, err := model.ParseSoC(npuYAML(t, replaceOnce(t, tc.old, tc.new)), "npu.yaml")
			want := fmt.Sprintf("npu.yaml:%d: %s: %s", line, tc.path, tc.msg)
			if err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

// TestEnumsRoundTrip: every known value of each enum reads back as
// itself, and a value built in code outside the list is not Known (what
// Validate refuses).
func TestEnumsRoundTrip(t *testing.T) {
	for _, k := range model.EngineKinds {
		if !k.Known() || k.String() != string(k) {
			t.Errorf("engine kind %q", k)
		}
	}
	for _, s := range model.Sharings {
		if !s.Known() || s.String() != string(s) {
			t.Errorf("sharing %q", s)
		}
	}
	if model.EngineKind("gpu").Known() || model.Sharing("").Known() {
		t.Error("an unknown value is Known")
	}
	for _, tc := range []struct {
		edit func(*model.SoC)
		want string
	}{
		{func(s *model.SoC) { s.Engines[1].Kind = "gpu" }, `engines[1].kind: "gpu" is not an engine kind (known: cpu, npu)`},
		{func(s *model.SoC) { s.DRAM.Sharing = "" }, `dram.sharing: "" is not a sharing policy (known: maxmin, proportional)`},
	} {
		s, err := presets.SoC("rk3588")
		if err != nil {
			t.Fatal(err)
		}
		tc.edit(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: got %v, want %q", err, tc.want)
		}
	}
}
