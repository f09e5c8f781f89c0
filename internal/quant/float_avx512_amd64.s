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

// func madF16AVX512(y, x *uint16, n int, s float32)
// y[i] += x[i]·s in float16 storage, float32 arithmetic
// (ggml_vec_mad_f16, flash attention's V accumulation).
TEXT ·madF16AVX512(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Z2
mad:
	VCVTPH2PS   (DI), Z0
	VCVTPH2PS   (SI), Z1
	VFMADD231PS Z2, Z1, Z0
	VCVTPS2PH   $0, Z0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	SUBQ        $16, CX
	JNZ         mad
	VZEROUPPER
	RET

// func scaleF16AVX512(y *uint16, n int, s float32)
// y[i] *= s in float16 storage (ggml_vec_scale_f16).
TEXT ·scaleF16AVX512(SB), NOSPLIT, $0-20
	MOVQ         y+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Z2
scale16:
	VCVTPH2PS (DI), Z0
	VMULPS    Z2, Z0, Z0
	VCVTPS2PH $0, Z0, (DI)
	ADDQ      $32, DI
	SUBQ      $16, CX
	JNZ       scale16
	VZEROUPPER
	RET

// func flashRowAVX512(k, v, q, mask *uint16, nkv, d int, scale float32, vkq *uint16) float32
// One query row and head of flash attention (ggml's
// ggml_compute_forward_flash_attn_ext_f16 with an f16 V): for each of the
// nkv positions whose f16 mask is not -inf, s = K[c]·q·scale + mask[c];
// a new maximum M rescales the f16 accumulator vkq by e^(Mold-M), else
// the position weighs e^(s-M); vkq += V[c]·weight; S = S·rescale +
// weight. K and V rows are d f16 apart (d a multiple of 16). Returns S
// (vkq holds the unnormalised sum; its caller zeroes it first).
// Registers: SI walks K, DI V, R8 the mask; DX is q, R10 vkq, R9 d's
// bytes; X4 holds M, X8 S, X6 the scale; Z19-Z30 EXP's constants.
TEXT ·flashRowAVX512(SB), NOSPLIT, $0-68
	MOVQ         k+0(FP), SI
	MOVQ         v+8(FP), DI
	MOVQ         q+16(FP), DX
	MOVQ         mask+24(FP), R8
	MOVQ         nkv+32(FP), CX
	MOVQ         d+40(FP), R9
	VMOVSS       scale+48(FP), X6
	MOVQ         vkq+56(FP), R10
	SHLQ         $1, R9
	EXPCONST
	MOVL         $0xff800000, AX
	VMOVD        AX, X4                // M = -inf
	VXORPS       X8, X8, X8            // S = 0
	TESTQ        CX, CX
	JZ           done
pos:
	MOVWLZX      (R8), AX
	CMPL         AX, $0xfc00
	JEQ          next                  // a masked position: skipped
	// s = K[c]·q, 16 at a time
	VPXORD       Z0, Z0, Z0
	XORQ         BX, BX
dot:
	VCVTPH2PS    (SI)(BX*1), Z1
	VCVTPH2PS    (DX)(BX*1), Z2
	VFMADD231PS  Z1, Z2, Z0
	ADDQ         $32, BX
	CMPQ         BX, R9
	JLT          dot
	VEXTRACTF64X4 $1, Z0, Y31
	VADDPS       Y31, Y0, Y0
	VEXTRACTF32X4 $1, Y0, X31
	VADDPS       X31, X0, X0
	VMOVHLPS     X0, X0, X31
	VADDPS       X31, X0, X0
	VMOVSHDUP    X0, X31
	VADDSS       X31, X0, X0
	VMULSS       X6, X0, X0
	VMOVD        AX, X3
	VCVTPH2PS    X3, X3
	VADDSS       X3, X0, X0            // s
	VUCOMISS     X4, X0
	JA           newmax
	// weight e^(s-M), no rescale
	VSUBSS       X4, X0, X0
	VBROADCASTSS X0, Z0
	EXP
	VMOVAPS      Z0, Z7                // the weight, in every lane
	VADDSS       X7, X8, X8            // S += weight
	JMP          mad
newmax:
	// rescale e^(Mold-s), M = s, weight 1
	VSUBSS       X0, X4, X5
	VMOVAPS      X0, X4
	VBROADCASTSS X5, Z0
	EXP
	VMULSS       X0, X8, X8            // S *= rescale
	XORQ         BX, BX
rescale:
	VCVTPH2PS    (R10)(BX*1), Z1
	VMULPS       Z0, Z1, Z1
	VCVTPS2PH    $0, Z1, (R10)(BX*1)
	ADDQ         $32, BX
	CMPQ         BX, R9
	JLT          rescale
	VMOVAPS      Z19, Z7               // weight 1
	VADDSS       X7, X8, X8
mad:
	XORQ         BX, BX
madloop:
	VCVTPH2PS    (R10)(BX*1), Z1
	VCVTPH2PS    (DI)(BX*1), Z2
	VFMADD231PS  Z7, Z2, Z1
	VCVTPS2PH    $0, Z1, (R10)(BX*1)
	ADDQ         $32, BX
	CMPQ         BX, R9
	JLT          madloop
next:
	ADDQ         R9, SI
	ADDQ         R9, DI
	ADDQ         $2, R8
	DECQ         CX
	JNZ          pos
done:
	VMOVSS       X8, ret+64(FP)
	VZEROUPPER
	RET

