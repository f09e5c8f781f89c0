//go:build !purego

#include "textflag.h"

// The float kernels of ggml's CPU backend as it runs them on AVX-512 (the
// GGML_F16/GGML_F32 vector macros of vec_dot_f16 and vec_dot_f32, and
// llamafile's tinyBLAS tile for a prompt's matrix products), in
// registers of 16 floats: half-precision operands are widened with
// VCVTPH2PS and every product is a VFMADD231PS into a float32
// accumulator. Each kernel takes counts that are multiples of 16; the Go
// callers run the rest.

// ZSUM adds the 16 lanes of ZA (YA, XA its lower halves) into XA's low
// lane, using X31/Y31 as scratch, and stores it at DST.
#define ZSUM(ZA, YA, XA, DST) \
	VEXTRACTF64X4 $1, ZA, Y31; \
	VADDPS        Y31, YA, YA; \
	VEXTRACTF32X4 $1, YA, X31; \
	VADDPS        X31, XA, XA; \
	VMOVHLPS      XA, XA, X31; \
	VADDPS        X31, XA, XA; \
	VMOVSHDUP     XA, X31; \
	VADDSS        X31, XA, XA; \
	VMOVSS        XA, DST

// F16LOAD and F32LOAD load 16 elements at OFF(BASE) into Z as float32.
#define F16LOAD(OFF, BASE, Z) VCVTPH2PS OFF(BASE), Z
#define F32LOAD(OFF, BASE, Z) VMOVUPS OFF(BASE), Z

// DOTBODY is a dot product over CX elements (CX > 0, a multiple of 16),
// ES bytes an element: 64 at a time into four accumulators (as ggml's
// GGML_F16_STEP / GGML_F32_STEP), then 16 at a time; the sum is left in X0.
#define DOTBODY(LOAD, ES) \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	CMPQ   CX, $64; \
	JLT    one; \
four: \
	LOAD(0, SI, Z4); \
	LOAD(0, DI, Z5); \
	VFMADD231PS Z4, Z5, Z0; \
	LOAD(16*ES, SI, Z6); \
	LOAD(16*ES, DI, Z7); \
	VFMADD231PS Z6, Z7, Z1; \
	LOAD(32*ES, SI, Z8); \
	LOAD(32*ES, DI, Z9); \
	VFMADD231PS Z8, Z9, Z2; \
	LOAD(48*ES, SI, Z10); \
	LOAD(48*ES, DI, Z11); \
	VFMADD231PS Z10, Z11, Z3; \
	ADDQ   $(64*ES), SI; \
	ADDQ   $(64*ES), DI; \
	SUBQ   $64, CX; \
	CMPQ   CX, $64; \
	JGE    four; \
one: \
	TESTQ  CX, CX; \
	JZ     sum; \
	LOAD(0, SI, Z4); \
	LOAD(0, DI, Z5); \
	VFMADD231PS Z4, Z5, Z0; \
	ADDQ   $(16*ES), SI; \
	ADDQ   $(16*ES), DI; \
	SUBQ   $16, CX; \
	JMP    one; \
sum: \
	VADDPS Z1, Z0, Z0; \
	VADDPS Z3, Z2, Z2; \
	VADDPS Z2, Z0, Z0

// func dotF16AVX512(x, y *uint16, n int) float32
TEXT ·dotF16AVX512(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	DOTBODY(F16LOAD, 2)
	ZSUM(Z0, Y0, X0, ret+24(FP))
	VZEROUPPER
	RET

// func dotF32AVX512(x, y *float32, n int) float32
TEXT ·dotF32AVX512(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	DOTBODY(F32LOAD, 4)
	ZSUM(Z0, Y0, X0, ret+24(FP))
	VZEROUPPER
	RET

// The 4×6 tile of llamafile's tinyBLAS on AVX-512 (RM 4, RN 6, 16
// floats a step, its 32 vector registers): rows a, a+lda, a+2·lda,
// a+3·lda against columns b, b+ldb, ..., b+5·ldb, over k elements (a
// multiple of 16). Z0-Z23 hold the 24 sums (column j, row i in Z(4j+i)),
// Z24-Z27 the rows' vectors, Z28-Z30 the columns'. c gets the 24 sums,
// c[4j+i]. SI walks the rows (R8 their stride in bytes, R9 three of it),
// DI the columns (R10, R11 three and R12 five strides); ST is the bytes
// of 16 elements.
#define FMA4(ZB, C0, C1, C2, C3) \
	VFMADD231PS Z24, ZB, C0; \
	VFMADD231PS Z25, ZB, C1; \
	VFMADD231PS Z26, ZB, C2; \
	VFMADD231PS Z27, ZB, C3

#define TILE(LD, ST) \
	LEAQ   (R8)(R8*2), R9; \
	LEAQ   (R10)(R10*2), R11; \
	LEAQ   (R10)(R10*4), R12; \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23; \
tile: \
	LD   (SI), Z24; \
	LD   (SI)(R8*1), Z25; \
	LD   (SI)(R8*2), Z26; \
	LD   (SI)(R9*1), Z27; \
	LD   (DI), Z28; \
	FMA4(Z28, Z0, Z1, Z2, Z3); \
	LD   (DI)(R10*1), Z29; \
	FMA4(Z29, Z4, Z5, Z6, Z7); \
	LD   (DI)(R10*2), Z30; \
	FMA4(Z30, Z8, Z9, Z10, Z11); \
	LD   (DI)(R11*1), Z28; \
	FMA4(Z28, Z12, Z13, Z14, Z15); \
	LD   (DI)(R10*4), Z29; \
	FMA4(Z29, Z16, Z17, Z18, Z19); \
	LD   (DI)(R12*1), Z30; \
	FMA4(Z30, Z20, Z21, Z22, Z23); \
	ADDQ $ST, SI; \
	ADDQ $ST, DI; \
	SUBQ $16, CX; \
	JNZ  tile; \
	ZSUM(Z0, Y0, X0, 0(DX)); ZSUM(Z1, Y1, X1, 4(DX)); ZSUM(Z2, Y2, X2, 8(DX)); ZSUM(Z3, Y3, X3, 12(DX)); \
	ZSUM(Z4, Y4, X4, 16(DX)); ZSUM(Z5, Y5, X5, 20(DX)); ZSUM(Z6, Y6, X6, 24(DX)); ZSUM(Z7, Y7, X7, 28(DX)); \
	ZSUM(Z8, Y8, X8, 32(DX)); ZSUM(Z9, Y9, X9, 36(DX)); ZSUM(Z10, Y10, X10, 40(DX)); ZSUM(Z11, Y11, X11, 44(DX)); \
	ZSUM(Z12, Y12, X12, 48(DX)); ZSUM(Z13, Y13, X13, 52(DX)); ZSUM(Z14, Y14, X14, 56(DX)); ZSUM(Z15, Y15, X15, 60(DX)); \
	ZSUM(Z16, Y16, X16, 64(DX)); ZSUM(Z17, Y17, X17, 68(DX)); ZSUM(Z18, Y18, X18, 72(DX)); ZSUM(Z19, Y19, X19, 76(DX)); \
	ZSUM(Z20, Y20, X20, 80(DX)); ZSUM(Z21, Y21, X21, 84(DX)); ZSUM(Z22, Y22, X22, 88(DX)); ZSUM(Z23, Y23, X23, 92(DX)); \
	VZEROUPPER

// func tileF16x4x6AVX512(a *uint16, lda int, b *uint16, ldb int, k int, c *[24]float32)
TEXT ·tileF16x4x6AVX512(SB), NOSPLIT, $0-48
	MOVQ  a+0(FP), SI
	MOVQ  lda+8(FP), R8
	MOVQ  b+16(FP), DI
	MOVQ  ldb+24(FP), R10
	MOVQ  k+32(FP), CX
	SHLQ  $1, R8
	SHLQ  $1, R10
	MOVQ c+40(FP), DX
	TILE(VCVTPH2PS, 32)
	RET

// func tileF32x4x6AVX512(a *float32, lda int, b *float32, ldb int, k int, c *[24]float32)
TEXT ·tileF32x4x6AVX512(SB), NOSPLIT, $0-48
	MOVQ  a+0(FP), SI
	MOVQ  lda+8(FP), R8
	MOVQ  b+16(FP), DI
	MOVQ  ldb+24(FP), R10
	MOVQ  k+32(FP), CX
	SHLQ  $2, R8
	SHLQ  $2, R10
	MOVQ c+40(FP), DX
	TILE(VMOVUPS, 64)
	RET

// The element-wise kernels, 16 floats a step, n > 0 a multiple of 16.

// func scaleAVX512(y *float32, n int, s float32)
// y[i] *= s (ggml_vec_scale_f32).
TEXT ·scaleAVX512(SB), NOSPLIT, $0-20
	MOVQ         y+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Z1
scale:
	VMULPS (DI), Z1, Z0
	VMOVUPS Z0, (DI)
	ADDQ   $64, DI
	SUBQ   $16, CX
	JNZ    scale
	VZEROUPPER
	RET

// func addAVX512(y, x *float32, n int)
// y[i] += x[i] (ggml_vec_add_f32, and softmax's mask).
TEXT ·addAVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
add:
	VMOVUPS (DI), Z0
	VADDPS  (SI), Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $16, CX
	JNZ     add
	VZEROUPPER
	RET

// EXPCONST loads the constants of EXP: Z20 log2(e), Z21 and Z22 ln 2 in
// two parts (Cody and Waite), Z23-Z28 the Taylor coefficients 1/6! ...
// 1/1!, Z29 and Z30 the clamp, Z19 one.
#define EXPCONST \
	MOVL $0x3fb8aa3b, AX; VPBROADCASTD AX, Z20; \
	MOVL $0x3f317200, AX; VPBROADCASTD AX, Z21; \
	MOVL $0x35bfbe8e, AX; VPBROADCASTD AX, Z22; \
	MOVL $0x3ab60b61, AX; VPBROADCASTD AX, Z23; \
	MOVL $0x3c088889, AX; VPBROADCASTD AX, Z24; \
	MOVL $0x3d2aaaab, AX; VPBROADCASTD AX, Z25; \
	MOVL $0x3e2aaaab, AX; VPBROADCASTD AX, Z26; \
	MOVL $0x3f000000, AX; VPBROADCASTD AX, Z27; \
	MOVL $0x3f800000, AX; VPBROADCASTD AX, Z28; \
	MOVL $0xc2aeac50, AX; VPBROADCASTD AX, Z29; \
	MOVL $0x42b0c0a5, AX; VPBROADCASTD AX, Z30; \
	VMOVAPS Z28, Z19

// EXP leaves e^Z0 in Z0 (Z1, Z2 scratch): clamp to [-87.34, 88.38],
// n = round(x·log2 e), r = x - n·ln 2 (in two parts), e^r by its Taylor
// polynomial to r^6/6! (|r| ≤ ln 2/2: relative error under 2e-7), times
// 2^n (VSCALEFPS).
#define EXP \
	VMAXPS      Z29, Z0, Z0; \
	VMINPS      Z30, Z0, Z0; \
	VMULPS      Z20, Z0, Z1; \
	VRNDSCALEPS $0, Z1, Z1; \
	VFNMADD231PS Z21, Z1, Z0; \
	VFNMADD231PS Z22, Z1, Z0; \
	VMOVAPS     Z23, Z2; \
	VFMADD213PS Z24, Z0, Z2; \
	VFMADD213PS Z25, Z0, Z2; \
	VFMADD213PS Z26, Z0, Z2; \
	VFMADD213PS Z27, Z0, Z2; \
	VFMADD213PS Z28, Z0, Z2; \
	VFMADD213PS Z19, Z0, Z2; \
	VSCALEFPS   Z1, Z2, Z0

// func expSumAVX512(y, x *float32, n int, max float32) float32
// y[i] = e^(x[i]-max), and their sum: the exponential pass of
// ggml_vec_soft_max_f32.
TEXT ·expSumAVX512(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS max+24(FP), Z18
	EXPCONST
	VPXORD       Z17, Z17, Z17
expsum:
	VMOVUPS (SI), Z0
	VSUBPS  Z18, Z0, Z0
	EXP
	VMOVUPS Z0, (DI)
	VADDPS  Z0, Z17, Z17
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JNZ     expsum
	ZSUM(Z17, Y17, X17, ret+32(FP))
	VZEROUPPER
	RET

// func siluAVX512(y, x *float32, n int)
// y[i] = x[i] / (1 + e^-x[i]) (ggml_vec_silu_f32).
TEXT ·siluAVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	EXPCONST
	VPXORD Z18, Z18, Z18
silu:
	VMOVUPS (SI), Z3
	VSUBPS  Z3, Z18, Z0
	EXP
	VADDPS  Z19, Z0, Z0
	VDIVPS  Z0, Z3, Z0
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JNZ     silu
	VZEROUPPER
	RET

// func cvtF16AVX512(y *uint16, x *float32, n int)
// y[i] = x[i] as float16, rounded to nearest even (ggml_cpu_fp32_to_fp16).
TEXT ·cvtF16AVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
cvt:
	VMOVUPS   (SI), Z0
	VCVTPS2PH $0, Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	SUBQ      $16, CX
	JNZ       cvt
	VZEROUPPER
	RET
