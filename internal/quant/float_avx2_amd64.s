//go:build !purego

#include "textflag.h"

// The float kernels of float_avx512_amd64.s for AVX2, FMA and F16C: 8
// floats a register, 16 registers, so llamafile's tinyBLAS tile is 4×3
// (its choice for 16 vector registers). Counts are multiples of 8.

// YSUM adds the 8 lanes of YA (XA its lower half) into XA's low lane,
// using X15 as scratch, and stores it at DST.
#define YSUM(YA, XA, DST) \
	VEXTRACTF128 $1, YA, X15; \
	VADDPS       X15, XA, XA; \
	VMOVHLPS     XA, XA, X15; \
	VADDPS       X15, XA, XA; \
	VMOVSHDUP    XA, X15; \
	VADDSS       X15, XA, XA; \
	VMOVSS       XA, DST

#define F16LOAD(OFF, BASE, Y) VCVTPH2PS OFF(BASE), Y
#define F32LOAD(OFF, BASE, Y) VMOVUPS OFF(BASE), Y

// DOTBODY: 32 elements at a time into four accumulators (ggml's
// GGML_F16_STEP and GGML_F32_STEP on AVX), then 8 at a time.
#define DOTBODY(LOAD, ES) \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	CMPQ   CX, $32; \
	JLT    one; \
four: \
	LOAD(0, SI, Y4); \
	LOAD(0, DI, Y5); \
	VFMADD231PS Y4, Y5, Y0; \
	LOAD(8*ES, SI, Y6); \
	LOAD(8*ES, DI, Y7); \
	VFMADD231PS Y6, Y7, Y1; \
	LOAD(16*ES, SI, Y8); \
	LOAD(16*ES, DI, Y9); \
	VFMADD231PS Y8, Y9, Y2; \
	LOAD(24*ES, SI, Y10); \
	LOAD(24*ES, DI, Y11); \
	VFMADD231PS Y10, Y11, Y3; \
	ADDQ   $(32*ES), SI; \
	ADDQ   $(32*ES), DI; \
	SUBQ   $32, CX; \
	CMPQ   CX, $32; \
	JGE    four; \
one: \
	TESTQ  CX, CX; \
	JZ     sum; \
	LOAD(0, SI, Y4); \
	LOAD(0, DI, Y5); \
	VFMADD231PS Y4, Y5, Y0; \
	ADDQ   $(8*ES), SI; \
	ADDQ   $(8*ES), DI; \
	SUBQ   $8, CX; \
	JMP    one; \
sum: \
	VADDPS Y1, Y0, Y0; \
	VADDPS Y3, Y2, Y2; \
	VADDPS Y2, Y0, Y0

// func dotF16AVX2(x, y *uint16, n int) float32
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	DOTBODY(F16LOAD, 2)
	YSUM(Y0, X0, ret+24(FP))
	VZEROUPPER
	RET

// func dotF32AVX2(x, y *float32, n int) float32
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	DOTBODY(F32LOAD, 4)
	YSUM(Y0, X0, ret+24(FP))
	VZEROUPPER
	RET

// func scaleAVX2(y *float32, n int, s float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-20
	MOVQ         y+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Y1
scale:
	VMULPS  (DI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     scale
	VZEROUPPER
	RET

// func addAVX2(y, x *float32, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
add:
	VMOVUPS (DI), Y0
	VADDPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $8, CX
	JNZ     add
	VZEROUPPER
	RET

// BCAST puts the float32 with bits V in every lane of Y.
#define BCAST(V, X, Y) \
	MOVL         V, AX; \
	VMOVD        AX, X; \
	VPBROADCASTD X, Y

// EXPCONST: Y5 log2(e), Y6 and Y7 ln 2 in two parts, Y8-Y13 the Taylor
// coefficients 1/6! ... 1/1! (= 1, also the constant term), Y14 and Y15
// the clamp. Y0-Y2 are EXP's scratch; Y3 and Y4 are the caller's.
#define EXPCONST \
	BCAST($0x3fb8aa3b, X5, Y5); \
	BCAST($0x3f317200, X6, Y6); \
	BCAST($0x35bfbe8e, X7, Y7); \
	BCAST($0x3ab60b61, X8, Y8); \
	BCAST($0x3c088889, X9, Y9); \
	BCAST($0x3d2aaaab, X10, Y10); \
	BCAST($0x3e2aaaab, X11, Y11); \
	BCAST($0x3f000000, X12, Y12); \
	BCAST($0x3f800000, X13, Y13); \
	BCAST($0xc2aeac50, X14, Y14); \
	BCAST($0x42b0c0a5, X15, Y15)

// EXP leaves e^Y0 in Y0 as the AVX-512 one does, with 2^n added to the
// exponent as an integer (n is within [-126, 127] after the clamp).
#define EXP \
	VMAXPS       Y14, Y0, Y0; \
	VMINPS       Y15, Y0, Y0; \
	VMULPS       Y5, Y0, Y1; \
	VROUNDPS     $0, Y1, Y1; \
	VFNMADD231PS Y6, Y1, Y0; \
	VFNMADD231PS Y7, Y1, Y0; \
	VMOVAPS      Y8, Y2; \
	VFMADD213PS  Y9, Y0, Y2; \
	VFMADD213PS  Y10, Y0, Y2; \
	VFMADD213PS  Y11, Y0, Y2; \
	VFMADD213PS  Y12, Y0, Y2; \
	VFMADD213PS  Y13, Y0, Y2; \
	VFMADD213PS  Y13, Y0, Y2; \
	VCVTPS2DQ    Y1, Y1; \
	VPSLLD       $23, Y1, Y1; \
	VPADDD       Y1, Y2, Y0

// func expSumAVX2(y, x *float32, n int, max float32) float32
TEXT ·expSumAVX2(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	EXPCONST
	VBROADCASTSS max+24(FP), Y4
	VXORPS       Y3, Y3, Y3
expsum:
	VMOVUPS (SI), Y0
	VSUBPS  Y4, Y0, Y0
	EXP
	VMOVUPS Y0, (DI)
	VADDPS  Y0, Y3, Y3
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     expsum
	VEXTRACTF128 $1, Y3, X0
	VADDPS       X0, X3, X3
	VMOVHLPS     X3, X3, X0
	VADDPS       X0, X3, X3
	VMOVSHDUP    X3, X0
	VADDSS       X0, X3, X3
	VMOVSS       X3, ret+32(FP)
	VZEROUPPER
	RET

// func siluAVX2(y, x *float32, n int)
TEXT ·siluAVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	EXPCONST
	VXORPS Y4, Y4, Y4
silu:
	VMOVUPS (SI), Y3
	VSUBPS  Y3, Y4, Y0
	EXP
	VADDPS  Y13, Y0, Y0
	VDIVPS  Y0, Y3, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     silu
	VZEROUPPER
	RET

// func cvtF16AVX2(y *uint16, x *float32, n int)
TEXT ·cvtF16AVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
cvt:
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JNZ       cvt
	VZEROUPPER
	RET

// func madF16AVX2(y, x *uint16, n int, s float32)
TEXT ·madF16AVX2(SB), NOSPLIT, $0-28
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y2
mad:
	VCVTPH2PS   (DI), Y0
	VCVTPH2PS   (SI), Y1
	VFMADD231PS Y2, Y1, Y0
	VCVTPS2PH   $0, Y0, (DI)
	ADDQ        $16, DI
	ADDQ        $16, SI
	SUBQ        $8, CX
	JNZ         mad
	VZEROUPPER
	RET

// func scaleF16AVX2(y *uint16, n int, s float32)
TEXT ·scaleF16AVX2(SB), NOSPLIT, $0-20
	MOVQ         y+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Y2
scale16:
	VCVTPH2PS (DI), Y0
	VMULPS    Y2, Y0, Y0
	VCVTPS2PH $0, Y0, (DI)
	ADDQ      $16, DI
	SUBQ      $8, CX
	JNZ       scale16
	VZEROUPPER
	RET


// func maxChain(x *float32, n int) float32
// The largest of x's n elements as ggml_vec_max_f32 runs, compiled (its
// MAX macro, no fast-math): one VMAXSS an element, each waiting on the
// last (c392e50's libggml-cpu.so, ggml_compute_forward_soft_max). Both
// the AVX2 and the AVX-512 implementations take it.
TEXT ·maxChain(SB), NOSPLIT, $0-20
	MOVQ  x+0(FP), SI
	MOVQ  n+8(FP), CX
	MOVL  $0xff800000, AX
	MOVL  AX, X0
maxloop:
	VMAXSS (SI), X0, X0
	ADDQ   $4, SI
	DECQ   CX
	JNZ    maxloop
	VMOVSS X0, ret+16(FP)
	RET
