package probe

import (
	"fmt"
	"math"
	"time"
)

// Kernel names an in-cache compute kernel for KernelThroughput.
type Kernel int

const (
	// KernelQ4Q8 is the dot product of 4-bit quantised weights (ggml's
	// Q4_0 layout: 32 weights per block as nibbles offset by 8, with a
	// float32 scale here instead of float16) with 8-bit quantised
	// activations (Q8_0), integer multiply-accumulate per block and one
	// float multiply-add per block, in pure Go. 64 ops per block: a
	// multiply and an add per weight.
	KernelQ4Q8 Kernel = iota
	// KernelF32 is a float32 dot product with eight accumulators: 2 ops
	// (multiply, add; fused where the compiler fuses) per element.
	KernelF32
)

func (k Kernel) String() string {
	switch k {
	case KernelQ4Q8:
		return "q4_0×q8_0"
	case KernelF32:
		return "f32"
	}
	return fmt.Sprintf("Kernel(%d)", int(k))
}

// Block sizes of the in-cache data: 128 Q4/Q8 block pairs (7 KiB) or two
// 1024-element float32 vectors (8 KiB), both well inside an L1 data cache.
const (
	kernelBlocks = 128
	kernelF32Len = 1024
)

type blockQ4 struct {
	d  float32
	qs [16]byte // weight j in the low nibble of qs[j], weight j+16 in the high
}

type blockQ8 struct {
	d  float32
	qs [32]int8
}

// dotQ4Q8 is the Q4_0×Q8_0 dot product.
func dotQ4Q8(x []blockQ4, y []blockQ8) float32 {
	y = y[:len(x)]
	var sum float32
	for i := range x {
		xq, yq := &x[i].qs, &y[i].qs
		var s0, s1 int32
		for j := 0; j < 16; j += 2 {
			a, b := xq[j], xq[j+1]
			s0 += (int32(a&0xF)-8)*int32(yq[j]) + (int32(b&0xF)-8)*int32(yq[j+1])
			s1 += (int32(a>>4)-8)*int32(yq[j+16]) + (int32(b>>4)-8)*int32(yq[j+17])
		}
		sum += float32(s0+s1) * x[i].d * y[i].d
	}
	return sum
}

// dotF32 is a float32 dot product with eight accumulators.
func dotF32(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(x) >= 8 {
		a, b := x[:8:8], y[:8:8]
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		s4 += a[4] * b[4]
		s5 += a[5] * b[5]
		s6 += a[6] * b[6]
		s7 += a[7] * b[7]
		x, y = x[8:], y[8:]
	}
	for i := range x {
		s0 += x[i] * y[i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// kernelData is one thread's in-cache operands.
type kernelData struct {
	q4  []blockQ4
	q8  []blockQ8
	f   []float32
	g   []float32
	acc float32
}

func newKernelData(seed uint32) *kernelData {
	d := &kernelData{
		q4: make([]blockQ4, kernelBlocks),
		q8: make([]blockQ8, kernelBlocks),
		f:  make([]float32, kernelF32Len),
		g:  make([]float32, kernelF32Len),
	}
	r := seed | 1
	next := func() uint32 { r ^= r << 13; r ^= r >> 17; r ^= r << 5; return r }
	for i := range d.q4 {
		d.q4[i].d = 1 / 64.0
		d.q8[i].d = 1 / 128.0
		for j := range d.q4[i].qs {
			d.q4[i].qs[j] = byte(next())
		}
		for j := range d.q8[i].qs {
			d.q8[i].qs[j] = int8(next())
		}
	}
	for i := range d.f {
		d.f[i] = float32(int32(next()%2001)-1000) / 1000
		d.g[i] = float32(int32(next()%2001)-1000) / 1000
	}
	return d
}

// run calls the kernel reps times and returns the ops done.
func (d *kernelData) run(k Kernel, reps int) float64 {
	var acc float32
	switch k {
	case KernelQ4Q8:
		for range reps {
			acc += dotQ4Q8(d.q4, d.q8)
		}
		d.acc += acc
		return float64(reps) * kernelBlocks * 64
	default:
		for range reps {
			acc += dotF32(d.f, d.g)
		}
		d.acc += acc
		return float64(reps) * kernelF32Len * 2
	}
}

// kernelSample is the target duration of one sample's work per thread.
const kernelSample = 2 * time.Millisecond

// KernelThroughput measures the throughput, in GOPS (1e9 ops per second)
// per thread, of kind running on threads threads pinned to cpus[0:threads]
// (threads 0 means all of cpus) at once, with operands in the L1 cache. A
// sample runs the kernel about 2ms on every thread and averages the
// threads' own rates; multiply by the thread count for the aggregate.
func KernelThroughput(cpus []int, threads int, kind Kernel, s *Settings) (Stats, error) {
	const unit = "GOPS"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	if kind != KernelQ4Q8 && kind != KernelF32 {
		return Stats{Unit: unit}, fmt.Errorf("probe: unknown kernel %d", int(kind))
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	cpus, err = firstThreads(cpus, threads)
	if err != nil {
		return Stats{Unit: unit}, err
	}
	p, err := NewPool(cpus, 0)
	if err != nil {
		return Stats{Unit: unit}, fmt.Errorf("probe: kernel %v throughput: %w", kind, err)
	}
	defer p.Close()
	data := make([]*kernelData, len(cpus))
	p.Run(func(w int) { data[w] = newKernelData(uint32(w)*2654435761 + 1) })

	// Size the sample on worker 0: double the repetitions until they take
	// kernelSample.
	reps := 1
	p.Run(func(w int) {
		if w != 0 {
			return
		}
		for reps < 1<<30 {
			t0 := now()
			data[0].run(kind, reps)
			if time.Duration(now()-t0) >= kernelSample/2 {
				break
			}
			reps *= 2
		}
		reps *= 2
	})

	res := make([]padded, len(cpus))
	st, err := repeat(cfg, unit, func() (float64, error) {
		p.Run(func(w int) {
			t0 := now()
			ops := data[w].run(kind, reps)
			res[w].gop = ops / float64(max(now()-t0, 1)) // ops per ns = GOPS
		})
		var sum float64
		for _, r := range res {
			sum += r.gop
		}
		return sum / float64(len(res)), nil
	})
	var acc float32
	for _, d := range data {
		acc += d.acc
	}
	sink.Add(uint64(math.Float32bits(acc)))
	return st, err
}
