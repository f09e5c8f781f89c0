package probe

import "testing"

func TestKernelThroughput(t *testing.T) {
	cpus, _ := AllowedCPUs()
	for _, k := range []Kernel{KernelQ4Q8, KernelF32, KernelQ4Q8Tile, KernelQ8Q8Tile, KernelQ8Q8Gemv} {
		st, err := KernelThroughput(cpus, 0, k, quick)
		if err != nil {
			t.Fatal(err)
		}
		inRange(t, k.String(), st, 0.01, 1000)
	}
	if _, err := KernelThroughput(cpus, 0, Kernel(9), quick); err == nil {
		t.Error("unknown kernel: no error")
	}
}
