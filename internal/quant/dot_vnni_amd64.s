//go:build !purego

#include "textflag.h"
#include "dot_amd64.h"

// The VNNI kernels are the AVX2 ones with VPDPBUSD (unsigned by signed
// bytes, four products added into each int32 lane, nothing saturates):
// DOTU adds Σ u·y (Y1 by Y2) to Y3, DOTC adds Σ c·y (Y14 by Y2) to Y4,
// where u is x plus an offset c (8 for nibbles, 128 for int8), so
// Σ x·y = Σ u·y - Σ c·y exactly. The same bodies serve AVX-VNNI (VEX
// encoding, which Go's assembler lacks, so written out as bytes) and
// AVX512-VNNI on ymm registers (EVEX encoding, which it has).

// Q4BLOCK is one Q4_0×Q8_0 block.
#define Q4BLOCK(OX, OY, ACC) \
	NIBBLES(OX, Y1); \
	VMOVDQU (OY+2)(DI), Y2; \
	VPXOR   Y3, Y3, Y3; \
	VPXOR   Y4, Y4, Y4; \
	DOTU; \
	DOTC; \
	VPSUBD  Y4, Y3, Y3; \
	SCALE(OX, OY, X4, Y4, X5); \
	ACCUMULATE(Y3, Y4, ACC)

// Q8BLOCK is one Q8_0×Q8_0 block; Y14 holds 0x80 bytes.
#define Q8BLOCK(OX, OY, ACC) \
	VMOVDQU (OX+2)(SI), Y1; \
	VMOVDQU (OY+2)(DI), Y2; \
	VPXOR   Y14, Y1, Y1; \
	VPXOR   Y3, Y3, Y3; \
	VPXOR   Y4, Y4, Y4; \
	DOTU; \
	DOTC; \
	VPSUBD  Y4, Y3, Y3; \
	SCALE(OX, OY, X4, Y4, X5); \
	ACCUMULATE(Y3, Y4, ACC)

#define Q8CONST \
	MOVL         $0x80808080, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14

// Q4ROW is one row's Q4_0 block of a four-row kernel: the nibbles as
// unsigned x+8, Σ u·y less the shared Σ 8·y, scaled (Q4BLOCK's steps).
#define Q4ROW(D, Q, ACC) \
	VBROADCASTI128 Q, Y1; \
	VPSRLVQ        Y12, Y1, Y1; \
	VPAND          Y15, Y1, Y1; \
	VPXOR          Y3, Y3, Y3; \
	DOTU; \
	VPSUBD         Y4, Y3, Y3; \
	ROWSCALE(D, ACC)

// Q8ROW is one row's Q8_0 block: x+128 unsigned, Σ u·y less the shared
// Σ 128·y, scaled (Q8BLOCK's steps).
#define Q8ROW(D, Q, ACC) \
	VMOVDQU Q, Y1; \
	VPXOR   Y14, Y1, Y1; \
	VPXOR   Y3, Y3, Y3; \
	DOTU; \
	VPSUBD  Y4, Y3, Y3; \
	ROWSCALE(D, ACC)

// AVX-VNNI: {vex} vpdpbusd ymm3, ymm1, ymm2 and {vex} vpdpbusd ymm4, ymm14, ymm2.
#define DOTU BYTE $0xc4; BYTE $0xe2; BYTE $0x75; BYTE $0x50; BYTE $0xda
#define DOTC BYTE $0xc4; BYTE $0xe2; BYTE $0x0d; BYTE $0x50; BYTE $0xe2

#define BLOCK Q4BLOCK

// func dotQ4Q8AVXVNNI(x *BlockQ4, y *BlockQ8, n int) float32
TEXT ·dotQ4Q8AVXVNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	Q4CONST
	KERNEL(18)
	MOVSS X0, ret+24(FP)
	RET

#undef BLOCK
#define BLOCK Q8BLOCK

// func dotQ8Q8AVXVNNI(x, y *BlockQ8, n int) float32
TEXT ·dotQ8Q8AVXVNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	Q8CONST
	KERNEL(34)
	MOVSS X0, ret+24(FP)
	RET

#undef BLOCK
#define ROW Q4ROW

// func dotQ4Q8x4AVXVNNI(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ4Q8x4AVXVNNI(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	Q4CONST
	KERNEL4(18)
	RET

#undef ROW
#define ROW Q8ROW

// func dotQ8Q8x4AVXVNNI(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ8Q8x4AVXVNNI(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	Q8CONST
	KERNEL4(34)
	RET

#undef ROW
#undef DOTU
#undef DOTC

// AVX512-VNNI with AVX512VL: the same instructions EVEX-encoded.
#define DOTU VPDPBUSD Y2, Y1, Y3
#define DOTC VPDPBUSD Y2, Y14, Y4
#define BLOCK Q4BLOCK

// func dotQ4Q8AVX512VNNI(x *BlockQ4, y *BlockQ8, n int) float32
TEXT ·dotQ4Q8AVX512VNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	Q4CONST
	KERNEL(18)
	MOVSS X0, ret+24(FP)
	RET

#undef BLOCK
#define BLOCK Q8BLOCK

// func dotQ8Q8AVX512VNNI(x, y *BlockQ8, n int) float32
TEXT ·dotQ8Q8AVX512VNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	Q8CONST
	KERNEL(34)
	MOVSS X0, ret+24(FP)
	RET

#undef BLOCK
#define ROW Q4ROW

// func dotQ4Q8x4AVX512VNNI(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ4Q8x4AVX512VNNI(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	Q4CONST
	KERNEL4(18)
	RET

#undef ROW
#define ROW Q8ROW

// func dotQ8Q8x4AVX512VNNI(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ8Q8x4AVX512VNNI(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	Q8CONST
	KERNEL4(34)
	RET
