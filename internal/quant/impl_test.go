package quant

import (
	"os"
	"testing"
)

func TestImpl(t *testing.T) {
	t.Logf("kernels: %s (of %d available)", Impl(), len(available))
	// CI runs that know the CPU (.ci/arm64-qemu.sh) say what to expect.
	if want := os.Getenv("QUANT_TEST_IMPL"); want != "" && Impl() != want {
		t.Fatalf("Impl() = %q, want %q (QUANT_TEST_IMPL)", Impl(), want)
	}
	defer active.Store(active.Load())
	if available[len(available)-1] != generic {
		t.Fatal("generic is not the last resort")
	}
	SetGeneric(true)
	if Impl() != "generic" {
		t.Fatalf("SetGeneric(true): Impl() = %q", Impl())
	}
	x4, x8, y := randQ4Q8(9, 9)
	if got, want := DotQ4Q8(x4, y), dotQ4Q8Generic(x4, y); got != want {
		t.Fatalf("SetGeneric(true): DotQ4Q8 = %g, generic %g", got, want)
	}
	if got, want := DotQ8Q8(x8, y), dotQ8Q8Generic(x8, y); got != want {
		t.Fatalf("SetGeneric(true): DotQ8Q8 = %g, generic %g", got, want)
	}
	SetGeneric(false)
	if Impl() != chosen.name {
		t.Fatalf("SetGeneric(false): Impl() = %q, want %q", Impl(), chosen.name)
	}
	for _, k := range available {
		if choose(k.name) != k {
			t.Errorf("BLSIM_KERNELS=%s chooses %s", k.name, choose(k.name).name)
		}
	}
	for _, name := range []string{"", "bogus"} {
		if choose(name) != available[0] {
			t.Errorf("BLSIM_KERNELS=%q chooses %s", name, choose(name).name)
		}
	}
	if DotQ4Q8(nil, nil) != 0 || DotQ8Q8(nil, nil) != 0 {
		t.Error("empty rows")
	}
}
