// Macros shared by the amd64 kernels. SI walks x, DI walks y, CX counts
// blocks; Y0 accumulates 8 float32 partial sums, block after block in
// order (one accumulator, so that the four-row kernels, which keep one per
// row, give bit-identical sums). Y1-Y5 are scratch; Y11-Y15 hold a
// kernel's constants.

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
	SUBQ   $2, CX; \
	JLT    tail; \
pairs: \
	PREFETCHT0 PF(SI); \
	BLOCK(0, 0, Y0); \
	BLOCK(XS, 34, Y0); \
	ADDQ   $(2*XS), SI; \
	ADDQ   $68, DI; \
	SUBQ   $2, CX; \
	JGE    pairs; \
tail: \
	TESTQ  $1, CX; \
	JZ     sum; \
	BLOCK(0, 0, Y0); \
sum: \
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

// The four-row kernels dot four rows of x, R8 bytes apart (R9 = 3·R8), with
// one y: the y block, its scale and the offset correction Σ c·y (DOTC into
// Y4) are loaded and computed once per block for the four rows. Each row
// has its own accumulator (Y0, Y7, Y8, Y9) and the same sequence of
// operations as the one-row kernel, so its sum is bit-identical.

// ROWSCALE adds the row's block, its integer sum in Y3, times x.D (at
// ADDR) · y.D (in X5) to ACC.
#define ROWSCALE(ADDR, ACC) \
	VCVTPH2PS    ADDR, X6; \
	VMULSS       X5, X6, X6; \
	VBROADCASTSS X6, Y6; \
	VCVTDQ2PS    Y3, Y3; \
	VFMADD231PS  Y6, Y3, ACC

// ROWSUM leaves the sum of ACC's 8 lanes in its low lane (XACC), as HSUM.
#define ROWSUM(ACC, XACC) \
	VEXTRACTF128 $1, ACC, X1; \
	VADDPS       X1, XACC, XACC; \
	VMOVHLPS     XACC, XACC, X1; \
	VADDPS       X1, XACC, XACC; \
	VMOVSHDUP    XACC, X1; \
	VADDSS       X1, XACC, XACC

// PFAHEAD sets R11 to SI plus how far ahead the four-row kernels
// prefetch each row (R8 its stride, the rows contiguous): PF bytes along a
// row at least PF long; else the same place in the row four rows on, the
// next four-row tile's. Short rows prefetched PF along their own row would
// land in a row of the same tile, being read already, and the next tile's
// rows, four short streams, are too short for the hardware prefetcher: on
// a 2-vCPU Xeon VM a 1-thread four-row Q8_0 walk over 480 MiB of 1088-byte
// rows from DRAM took longer than its in-cache compute and a pure read of
// the same bytes together, and as long as the read alone with 8 KiB rows.
#define PFAHEAD \
	MOVQ R8, R13; \
	SHLQ $2, R13; \
	MOVQ R13, R11; \
	CMPQ R8, $(8*PF); \
	JLT  pfnext; \
	MOVQ $PF, R11; \
	JMP  pfset; \
pfnext: \
	CMPQ R11, $PF; \
	JGE  pfset; \
	ADDQ R13, R11; \
	JMP  pfnext; \
pfset: \
	ADDQ SI, R11

// BLOCK4 is one block of the four rows at offset OX of x and OY of y.
#define BLOCK4(OX, OY) \
	VMOVDQU   (OY+2)(DI), Y2; \
	VPXOR     Y4, Y4, Y4; \
	DOTC; \
	VCVTPH2PS OY(DI), X5; \
	ROW(OX(SI), (OX+2)(SI), Y0); \
	ROW(OX(SI)(R8*1), (OX+2)(SI)(R8*1), Y7); \
	ROW(OX(SI)(R8*2), (OX+2)(SI)(R8*2), Y8); \
	ROW(OX(SI)(R9*1), (OX+2)(SI)(R9*1), Y9)

// KERNEL4 runs ROW(D, Q, ACC) (the kernel's: one row's block, its scale at
// D and its weights at Q, into ACC, with the y block in Y2 and Σ c·y in
// Y4) for the four rows over the CX ≥ 1 blocks, two per iteration, x's
// blocks XS bytes long, and stores the four sums at DX. Each row is
// prefetched every other block (36 or 68 bytes): one prefetch per block
// and row slowed the in-cache Q8_0 kernel by 6%. Where it is prefetched is
// PFAHEAD's.
#define KERNEL4(XS) \
	LEAQ   (R8)(R8*2), R9; \
	PFAHEAD; \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	SUBQ   $2, CX; \
	JLT    tail4; \
pairs4: \
	PREFETCHT0 (R11); \
	PREFETCHT0 (R11)(R8*1); \
	BLOCK4(0, 0); \
	PREFETCHT0 XS(R11)(R8*2); \
	PREFETCHT0 XS(R11)(R9*1); \
	BLOCK4(XS, 34); \
	ADDQ       $(2*XS), SI; \
	ADDQ       $(2*XS), R11; \
	ADDQ       $68, DI; \
	SUBQ       $2, CX; \
	JGE        pairs4; \
tail4: \
	TESTQ      $1, CX; \
	JZ         sum4; \
	BLOCK4(0, 0); \
sum4: \
	ROWSUM(Y0, X0); \
	ROWSUM(Y7, X7); \
	ROWSUM(Y8, X8); \
	ROWSUM(Y9, X9); \
	MOVSS      X0, 0(DX); \
	MOVSS      X7, 4(DX); \
	MOVSS      X8, 8(DX); \
	MOVSS      X9, 12(DX); \
	VZEROUPPER
