package presets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSoCPreset: a preset's name, and an unchanged copy of a preset
// (socs show NAME > mine.yaml), are that preset; an edited copy, another
// file or an unknown name are none.
func TestSoCPreset(t *testing.T) {
	data, err := SoCData("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyPath, edited := filepath.Join(dir, "copy.yaml"), filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "peak_gb_s: 33.8") {
		t.Fatalf("rk3588 lacks peak_gb_s: 33.8:\n%s", data)
	}
	if err := os.WriteFile(edited, []byte(strings.Replace(string(data), "peak_gb_s: 33.8", "peak_gb_s: 40", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"rk3588": "rk3588", "pi5": "pi5", copyPath: "rk3588", edited: "", "nosuch": "", filepath.Join(dir, "none.yaml"): ""} {
		if got := SoCPreset(ref); got != want {
			t.Errorf("SoCPreset(%s) = %q, want %q", ref, got, want)
		}
	}
}
