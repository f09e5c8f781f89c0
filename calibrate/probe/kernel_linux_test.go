package probe

import "testing"

func TestKernelThroughput(t *testing.T) {
	cpus, _ := AllowedCPUs()
	for k := KernelQ4Q8; k < kernelCount; k++ {
		st, err := KernelThroughput(cpus, 0, k, quick)
		if err != nil {
			t.Fatal(err)
		}
		inRange(t, k.String(), st, 0.01, 1000)
	}
	if _, err := KernelThroughput(cpus, 0, kernelCount, quick); err == nil {
		t.Error("unknown kernel: no error")
	}
}

// TestKernelRatio: a kernel over itself, timed in alternation, is one
// within what two windows of one sample can differ by, whatever else runs
// (a neighbour slows both alike); gemv over tile is a share; unknown
// kernels and a CPU the process may not use are refused.
func TestKernelRatio(t *testing.T) {
	cpus, _ := AllowedCPUs()
	self, err := KernelRatio(cpus[0], KernelQ8Q8Tile, KernelQ8Q8Tile, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "tile over tile", self, 0.5, 2)
	if self.Unit != "ratio" || self.N < 3 {
		t.Errorf("tile over tile: unit %q, %d samples", self.Unit, self.N)
	}
	g, err := KernelRatio(cpus[0], KernelQ8Q8Gemv, KernelQ8Q8Tile, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "gemv over tile", g, 0.05, 2)
	for _, k := range [][2]Kernel{{kernelCount, KernelQ8Q8Tile}, {KernelQ8Q8Gemv, -1}} {
		if _, err := KernelRatio(cpus[0], k[0], k[1], quick); err == nil {
			t.Errorf("kernels %d over %d: no error", k[0], k[1])
		}
	}
	if _, err := KernelRatio(-1, KernelQ8Q8Gemv, KernelQ8Q8Tile, quick); err == nil {
		t.Error("cpu -1: no error")
	}
}
