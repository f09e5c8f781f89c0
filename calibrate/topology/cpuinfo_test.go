package topology

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	os.WriteFile(filepath.Join(dir, "proc", "cpuinfo"), []byte("processor\t: 0\nBogoMIPS\t: 48.00\n\nHardware\t: Rockchip RK3588\n"), 0o644)
	for root, want := range map[string]string{
		"testdata/i7-1260p":                "12th Gen Intel(R) Core(TM) i7-1260P",
		"testdata/rk3588":                  "", // arm64 without a Hardware line
		dir:                                "Rockchip RK3588",
		filepath.Join(dir, "no-such-tree"): "",
	} {
		if got := CPUModel(root); got != want {
			t.Errorf("CPUModel(%s) = %q, want %q", root, got, want)
		}
	}
}
