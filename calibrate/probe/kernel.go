package probe

import (
	"fmt"
	"math"
	"time"

	"github.com/blsim/blsim/internal/quant"
)

// Kernel names an in-cache compute kernel for KernelThroughput.
type Kernel int

const (
	// KernelQ4Q8 is the dot product of 4-bit quantised weights (ggml's
	// Q4_0 layout: 32 weights per block as nibbles offset by 8, with a
	// float16 scale) with 8-bit quantised activations (Q8_0), integer
	// multiply-accumulate per block and one float multiply-add per block,
	// quant.DotQ4Q8: the kernel the built-in dispatcher runs (Go assembly
	// for the CPU's SIMD units, quant.Impl names it).
	// 64 ops per block: a multiply and an add per weight.
	KernelQ4Q8 Kernel = iota
	// KernelF32 is quant.DotF32, a float32 dot product with four
	// accumulators: 2 ops (multiply, add; fused where the compiler fuses)
	// per element.
	KernelF32
	// KernelQ4Q8Tile is the built-in dispatcher's full-tile kernel for
	// Q4_0 weights, quant.DotQ4Q8x4x2: four weight rows dotted with two
	// activation rows, each weight block loaded once for both. A gemm
	// tile of 16 tokens runs it for each pair of tokens. 64 ops per
	// block pair.
	KernelQ4Q8Tile
	// KernelQ8Q8Tile is KernelQ4Q8Tile for Q8_0 weights,
	// quant.DotQ8Q8x4x2.
	KernelQ8Q8Tile
	// KernelQ8Q8Gemv is the dispatcher's one-token walk of Q8_0 weights,
	// quant.DotQ8Q8x4: four rows with one activation row, as a gemv (a
	// generated token, an expert routed one token) runs them.
	KernelQ8Q8Gemv
	// KernelF16Attn is attention's two f16 products for a prompt, as
	// llama.cpp runs them without flash attention (quant.Attention's Scores
	// and Values): 64 tokens against 512 cached positions of one head of
	// 64, llamafile's tinyBLAS tiles. 4·n·n_kv·d ops.
	KernelF16Attn
	// KernelF16Gemv is the same products for one token: an f16 dot product
	// an output (ggml's vec_dot_f16).
	KernelF16Gemv
	// KernelSoftmax is attention's softmax of the 64 tokens' score rows of
	// 512 (scale, causal mask, maximum, exponentials, sum, normalise) and
	// the probabilities' conversion to f16 (quant.Attention's SoftMax). One
	// op an element.
	KernelSoftmax
	// KernelFlashAttn is flash attention of the same 64 tokens
	// (ggml's flash_attn_ext: a dot product, an exponential and an f16
	// multiply-add of V a visible position). 4·d ops a visible position.
	KernelFlashAttn
	// KernelF32Tile is an f32 product as tinyBLAS runs it (the f32 class:
	// f32 weights): 64 rows by 64 columns over 1024, in tiles.
	KernelF32Tile
	// KernelNorm is ggml's RMS norm of rows of 1024 (a float64 sum of
	// squares a element, then a scaled copy): the non-matmul ops the model
	// charges (norms, the MoE combine), counted as it counts them, 8 ops
	// an element.
	KernelNorm
	// kernelCount is the number of kernels.
	kernelCount
)

func (k Kernel) String() string {
	switch k {
	case KernelQ4Q8:
		return "q4_0×q8_0"
	case KernelF32:
		return "f32"
	case KernelQ4Q8Tile:
		return "q4_0×q8_0 4×2 tile"
	case KernelQ8Q8Tile:
		return "q8_0×q8_0 4×2 tile"
	case KernelQ8Q8Gemv:
		return "q8_0×q8_0 4×1 gemv"
	case KernelF16Attn:
		return "f16 attention products"
	case KernelF16Gemv:
		return "f16 attention products, one token"
	case KernelSoftmax:
		return "attention softmax"
	case KernelFlashAttn:
		return "flash attention"
	case KernelF32Tile:
		return "f32 tiles"
	case KernelNorm:
		return "rms norm"
	}
	return fmt.Sprintf("Kernel(%d)", int(k))
}

// Block sizes of the in-cache data: 128 Q4/Q8 block pairs (7 KiB) or two
// 1024-element float32 vectors (8 KiB), both well inside an L1 data cache.
const (
	kernelBlocks = 128
	kernelF32Len = 1024
)

// Tile kernels' rows: kernelBlocks blocks in four rows of tileRowBlocks.
const tileRowBlocks = kernelBlocks / 4

// kernelData is one thread's in-cache operands: q4 and w8 are weights, q8
// and y8 two activation rows (for the tiles, the first tileRowBlocks
// blocks of each).
type kernelData struct {
	q4  []quant.BlockQ4
	q8  []quant.BlockQ8
	w8  []quant.BlockQ8
	y8  []quant.BlockQ8
	f   []float32
	g   []float32
	acc float32
	fl  *floatData
}

func newKernelData(seed uint32) *kernelData {
	d := &kernelData{
		q4: make([]quant.BlockQ4, kernelBlocks),
		q8: make([]quant.BlockQ8, kernelBlocks),
		w8: make([]quant.BlockQ8, kernelBlocks),
		y8: make([]quant.BlockQ8, kernelBlocks),
		f:  make([]float32, kernelF32Len),
		g:  make([]float32, kernelF32Len),
	}
	r := seed | 1
	next := func() uint32 { r ^= r << 13; r ^= r >> 17; r ^= r << 5; return r }
	for i := range d.q4 {
		d.q4[i].D = quant.F16(1 / 64.0)
		d.q8[i].D = quant.F16(1 / 128.0)
		for j := range d.q4[i].Qs {
			d.q4[i].Qs[j] = byte(next())
		}
		d.w8[i].D, d.y8[i].D = quant.F16(1/128.0), quant.F16(1/128.0)
		for j := range d.q8[i].Qs {
			d.q8[i].Qs[j] = int8(next())
			d.w8[i].Qs[j] = int8(next())
			d.y8[i].Qs[j] = int8(next())
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
			acc += quant.DotQ4Q8(d.q4, d.q8)
		}
		d.acc += acc
		return float64(reps) * kernelBlocks * 64
	case KernelQ4Q8Tile, KernelQ8Q8Tile:
		var o0, o1 [4]float32
		for range reps {
			if k == KernelQ4Q8Tile {
				quant.DotQ4Q8x4x2(d.q4, tileRowBlocks, d.q8, d.y8, &o0, &o1)
			} else {
				quant.DotQ8Q8x4x2(d.w8, tileRowBlocks, d.q8, d.y8, &o0, &o1)
			}
			acc += o0[0] + o1[3]
		}
		d.acc += acc
		return float64(reps) * kernelBlocks * 64 * 2
	case KernelQ8Q8Gemv:
		var o [4]float32
		for range reps {
			quant.DotQ8Q8x4(d.w8, tileRowBlocks, d.q8, &o)
			acc += o[0] + o[3]
		}
		d.acc += acc
		return float64(reps) * kernelBlocks * 64
	case KernelF32:
		for range reps {
			acc += quant.DotF32(d.f, d.g)
		}
		d.acc += acc
		return float64(reps) * kernelF32Len * 2
	}
	if d.fl == nil {
		d.fl = newFloatData()
	}
	return d.fl.run(k, reps)
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
	if kind < KernelQ4Q8 || kind >= kernelCount {
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

// KernelRatio measures kernel num's rate over kernel den's on one thread
// pinned to cpu, with operands in the L1 cache, and returns the ratio's
// Stats (unit "ratio"). The two are timed in alternation, num den den num
// within each sample (each window about 2ms, as KernelThroughput's
// sample), on the thread's CPU clock, and a sample is num's ops per
// second over den's across its four windows. A drift of the machine's
// speed that is slow next to a sample (the clock, a neighbour's memory
// traffic) reaches both kernels alike and cancels in the ratio; time the
// thread spends preempted by another process, which would fall on
// whichever window it interrupts, is not on its CPU clock.
func KernelRatio(cpu int, num, den Kernel, s *Settings) (Stats, error) {
	const unit = "ratio"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	for _, k := range []Kernel{num, den} {
		if k < KernelQ4Q8 || k >= kernelCount {
			return Stats{Unit: unit}, fmt.Errorf("probe: unknown kernel %d", int(k))
		}
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	p, err := NewPool([]int{cpu}, 0)
	if err != nil {
		return Stats{Unit: unit}, fmt.Errorf("probe: kernel %v over %v: %w", num, den, err)
	}
	defer p.Close()
	var d *kernelData
	var rn, rd int
	p.Run(func(int) {
		d = newKernelData(1)
		_, err = threadCPUNanos()
		// Size each kernel's window as KernelThroughput sizes its sample.
		size := func(k Kernel) int {
			reps := 1
			for reps < 1<<30 {
				t0 := now()
				d.run(k, reps)
				if time.Duration(now()-t0) >= kernelSample/2 {
					break
				}
				reps *= 2
			}
			return 2 * reps
		}
		rn, rd = size(num), size(den)
	})
	if err != nil {
		return Stats{Unit: unit}, err
	}
	st, err := repeat(cfg, unit, func() (float64, error) {
		var ops [2]float64
		var ns [2]int64
		p.Run(func(int) {
			t0, _ := threadCPUNanos()
			for _, i := range [4]int{0, 1, 1, 0} {
				k, reps := num, rn
				if i == 1 {
					k, reps = den, rd
				}
				ops[i] += d.run(k, reps)
				t1, _ := threadCPUNanos()
				ns[i] += max(t1-t0, 1)
				t0 = t1
			}
		})
		return (ops[0] / float64(ns[0])) / (ops[1] / float64(ns[1])), nil
	})
	sink.Add(uint64(math.Float32bits(d.acc)))
	return st, err
}
