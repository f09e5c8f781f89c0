package quant

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guarded returns size bytes that end where an inaccessible page begins, so
// that a kernel reading past its last block faults.
func guarded(t *testing.T, size int) []byte {
	page := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return mem[page-size : page]
}

// TestNoOverread runs every implementation on rows that end at a guard
// page.
func TestNoOverread(t *testing.T) {
	for _, n := range lengths[1:] {
		x4, x8, y := randQ4Q8(n, uint64(n))
		gx4 := unsafe.Slice((*BlockQ4)(unsafe.Pointer(&guarded(t, n*int(unsafe.Sizeof(BlockQ4{})))[0])), n)
		gx8 := unsafe.Slice((*BlockQ8)(unsafe.Pointer(&guarded(t, n*int(unsafe.Sizeof(BlockQ8{})))[0])), n)
		gy := unsafe.Slice((*BlockQ8)(unsafe.Pointer(&guarded(t, n*int(unsafe.Sizeof(BlockQ8{})))[0])), n)
		copy(gx4, x4)
		copy(gx8, x8)
		copy(gy, y)
		for _, k := range available {
			if got, want := k.q4q8(&gx4[0], &gy[0], n), k.q4q8(&x4[0], &y[0], n); got != want {
				t.Errorf("n=%d %s: q4×q8 %g, want %g", n, k.name, got, want)
			}
			if got, want := k.q8q8(&gx8[0], &gy[0], n), k.q8q8(&x8[0], &y[0], n); got != want {
				t.Errorf("n=%d %s: q8×q8 %g, want %g", n, k.name, got, want)
			}
		}
	}
}
