// Macros shared by the amd64 kernels. SI walks x, DI walks y, CX counts
// blocks; Y0 and Y6 accumulate 8 float32 partial sums each (even and odd
// blocks). Y1-Y5 are scratch; Y11-Y15 hold a kernel's constants.

// SCALE puts F32(x.D)·F32(y.D) of the blocks at OX(SI), OY(DI) in all 8
// lanes of YD (XD its low half), using XT. VCVTPH2PS from memory converts
// 4 float16, of which only the first (the scale) is used.
#define SCALE(OX, OY, XD, YD, XT) \
	VCVTPH2PS    OX(SI), XD; \
	VCVTPH2PS    OY(DI), XT; \
	VMULSS       XT, XD, XD; \
	VBROADCASTSS XD, YD

// ACCUMULATE converts the 8 int32 partial sums of a block in YS to float
// and adds them, times the block's scales in YD, to ACC.
#define ACCUMULATE(YS, YD, ACC) \
	VCVTDQ2PS   YS, YS; \
	VFMADD231PS YD, YS, ACC

// KERNEL runs BLOCK(OX, OY, ACC) (defined by the kernel: one block at
// OX(SI), OY(DI) into ACC) over the CX ≥ 1 blocks, two per iteration, x's
// blocks XS bytes long and y's 34, and leaves the sum in X0. CX ends as -2
// (even count) or -1 (one block left over).
// PF is how far ahead of x KERNEL prefetches, in bytes. A Q4_0 row read
// from DRAM by one thread otherwise leaves the core waiting on memory: on
// a 2-vCPU Xeon VM, a 1-thread Q4_0×Q8_0 gemv over 1 GiB of weights pulled
// 4.7 GB/s (likwid-bench load_avx: 14.5) without it and 11.8 GB/s with
// 2 KiB; Q8_0 12.7 and 17.6. In cache it changes nothing (16.4 GB/s both).
#define PF 2048
#define KERNEL(XS) \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y6, Y6, Y6; \
	SUBQ   $2, CX; \
	JLT    tail; \
pairs: \
	PREFETCHT0 PF(SI); \
	BLOCK(0, 0, Y0); \
	BLOCK(XS, 34, Y6); \
	ADDQ   $(2*XS), SI; \
	ADDQ   $68, DI; \
	SUBQ   $2, CX; \
	JGE    pairs; \
tail: \
	TESTQ  $1, CX; \
	JZ     sum; \
	BLOCK(0, 0, Y0); \
sum: \
	VADDPS Y6, Y0, Y0; \
	HSUM

// HSUM leaves the sum of Y0's 8 lanes in X0 and clears the upper halves
// of the ymm registers for the SSE code that follows.
#define HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0; \
	VZEROUPPER

// NIBBLES puts the 32 weights of the Q4_0 block at OX(SI) in YU as
// unsigned bytes x+8, weight j in byte j: both lanes get the 16 bytes of
// nibbles, the high lane's shifted right by 4 (VPSRLVQ by Y12 = 0, 0, 4,
// 4; the bits shifted in from the next byte are masked off), then masked
// with Y15 = 0x0f bytes.
#define NIBBLES(OX, YU) \
	VBROADCASTI128 (OX+2)(SI), YU; \
	VPSRLVQ        Y12, YU, YU; \
	VPAND          Y15, YU, YU

// Q4CONST sets the constants NIBBLES needs, and Y14 = 8 bytes.
#define Q4CONST \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15; \
	MOVL         $0x08080808, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14; \
	MOVL         $4, AX; \
	VMOVQ        AX, X11; \
	VPBROADCASTQ X11, X11; \
	VPXOR        X12, X12, X12; \
	VINSERTI128  $1, X11, Y12, Y12
