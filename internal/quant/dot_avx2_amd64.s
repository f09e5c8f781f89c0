//go:build !purego

#include "textflag.h"
#include "dot_amd64.h"

// The AVX2 kernels keep every product exact for all int8 values, -128
// included (ggml's VPSIGNB trick does not: -(-128) wraps). VPMADDUBSW
// multiplies unsigned by signed bytes and adds pairs into int16, which
// cannot saturate here: |pair| ≤ 2·15·128 for nibbles, ≤ 2·128·128 for
// the split bytes below (and -32768 is representable). VPMADDWD by Y13 =
// 1 words then adds int16 pairs into int32.

// Q4_0×Q8_0: Σ (u-8)·y = Σ u·y - Σ 8·y for the unsigned nibbles u, both
// terms and their difference exact in int16 pairs.
#define BLOCK(OX, OY, ACC) \
	NIBBLES(OX, Y1); \
	VMOVDQU    (OY+2)(DI), Y2; \
	VPMADDUBSW Y2, Y1, Y3; \
	VPMADDUBSW Y2, Y14, Y4; \
	VPSUBW     Y4, Y3, Y3; \
	VPMADDWD   Y13, Y3, Y3; \
	SCALE(OX, OY, X4, Y4, X5); \
	ACCUMULATE(Y3, Y4, ACC)

// func dotQ4Q8AVX2(x *BlockQ4, y *BlockQ8, n int) float32
TEXT ·dotQ4Q8AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	Q4CONST
	VPCMPEQW Y13, Y13, Y13
	VPSRLW   $15, Y13, Y13
	KERNEL(18)
	MOVSS X0, ret+24(FP)
	RET

#undef BLOCK

// Q8_0×Q8_0: x = lo - hi with lo = x&0x7f and hi = x&0x80 as unsigned
// bytes (Y15 = 0x7f bytes), so Σ x·y = Σ lo·y - Σ hi·y, both terms exact
// in int16 pairs, their difference in int32.
#define BLOCK(OX, OY, ACC) \
	VMOVDQU    (OX+2)(SI), Y1; \
	VMOVDQU    (OY+2)(DI), Y2; \
	VPAND      Y15, Y1, Y3; \
	VPANDN     Y1, Y15, Y4; \
	VPMADDUBSW Y2, Y3, Y3; \
	VPMADDUBSW Y2, Y4, Y4; \
	VPMADDWD   Y13, Y3, Y3; \
	VPMADDWD   Y13, Y4, Y4; \
	VPSUBD     Y4, Y3, Y3; \
	SCALE(OX, OY, X4, Y4, X5); \
	ACCUMULATE(Y3, Y4, ACC)

// func dotQ8Q8AVX2(x, y *BlockQ8, n int) float32
TEXT ·dotQ8Q8AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	MOVL         $0x7f7f7f7f, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	VPCMPEQW     Y13, Y13, Y13
	VPSRLW       $15, Y13, Y13
	KERNEL(34)
	MOVSS X0, ret+24(FP)
	RET
