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
