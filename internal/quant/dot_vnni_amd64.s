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

// The four-row, two-token AVX512-VNNI kernels: four rows of x (R8 bytes
// apart, R9 = 3·R8) against two activation rows, y0 at DI and y1 at BX,
// with the EVEX encoding's registers 16-31 holding the second token's
// accumulators (Y16-Y19), block (Y20), offset sum (Y21) and scale (X22).
// Each of the eight (row, token) sums follows the one-row kernel's steps in
// the same order, so it is bit-identical to it.

// ROWPAIR is one row's block against both tokens: its weights in Y1 (as
// unsigned bytes), its scale at D.
#define ROWPAIR(D, ACC0, ACC1) \
	VCVTPH2PS    D, X6; \
	VPXORD       Y3, Y3, Y3; \
	VPDPBUSD     Y2, Y1, Y3; \
	VPSUBD       Y4, Y3, Y3; \
	VMULSS       X5, X6, X23; \
	VBROADCASTSS X23, Y23; \
	VCVTDQ2PS    Y3, Y3; \
	VFMADD231PS  Y23, Y3, ACC0; \
	VPXORD       Y24, Y24, Y24; \
	VPDPBUSD     Y20, Y1, Y24; \
	VPSUBD       Y21, Y24, Y24; \
	VMULSS       X22, X6, X25; \
	VBROADCASTSS X25, Y25; \
	VCVTDQ2PS    Y24, Y24; \
	VFMADD231PS  Y25, Y24, ACC1

#define Q4PAIR(D, Q, ACC0, ACC1) \
	VBROADCASTI128 Q, Y1; \
	VPSRLVQ        Y12, Y1, Y1; \
	VPAND          Y15, Y1, Y1; \
	ROWPAIR(D, ACC0, ACC1)

#define Q8PAIR(D, Q, ACC0, ACC1) \
	VMOVDQU Q, Y1; \
	VPXOR   Y14, Y1, Y1; \
	ROWPAIR(D, ACC0, ACC1)

// KERNEL4X2 runs PAIR over the CX ≥ 1 blocks (x's XS bytes long) and
// stores the four sums of y0 at DX and the four of y1 at R10.
#define KERNEL4X2(XS) \
	LEAQ      (R8)(R8*2), R9; \
	VXORPS    Y0, Y0, Y0; \
	VXORPS    Y7, Y7, Y7; \
	VXORPS    Y8, Y8, Y8; \
	VXORPS    Y9, Y9, Y9; \
	VPXORD    Y16, Y16, Y16; \
	VPXORD    Y17, Y17, Y17; \
	VPXORD    Y18, Y18, Y18; \
	VPXORD    Y19, Y19, Y19; \
	PFAHEAD; \
blocks42: \
	PREFETCHT0 (R11); \
	PREFETCHT0 (R11)(R8*1); \
	PREFETCHT0 (R11)(R8*2); \
	PREFETCHT0 (R11)(R9*1); \
	VMOVDQU    2(DI), Y2; \
	VPXOR      Y4, Y4, Y4; \
	VPDPBUSD   Y2, Y14, Y4; \
	VCVTPH2PS  (DI), X5; \
	VMOVDQU32  2(BX), Y20; \
	VPXORD     Y21, Y21, Y21; \
	VPDPBUSD   Y20, Y14, Y21; \
	VCVTPH2PS  (BX), X22; \
	PAIR(0(SI), 2(SI), Y0, Y16); \
	PAIR(0(SI)(R8*1), 2(SI)(R8*1), Y7, Y17); \
	PAIR(0(SI)(R8*2), 2(SI)(R8*2), Y8, Y18); \
	PAIR(0(SI)(R9*1), 2(SI)(R9*1), Y9, Y19); \
	ADDQ       $XS, SI; \
	ADDQ       $XS, R11; \
	ADDQ       $34, DI; \
	ADDQ       $34, BX; \
	DECQ       CX; \
	JNZ        blocks42; \
	ROWSUM(Y0, X0); \
	ROWSUM(Y7, X7); \
	ROWSUM(Y8, X8); \
	ROWSUM(Y9, X9); \
	VMOVSS     X0, 0(DX); \
	VMOVSS     X7, 4(DX); \
	VMOVSS     X8, 8(DX); \
	VMOVSS     X9, 12(DX); \
	VMOVAPS    Y16, Y0; \
	VMOVAPS    Y17, Y7; \
	VMOVAPS    Y18, Y8; \
	VMOVAPS    Y19, Y9; \
	ROWSUM(Y0, X0); \
	ROWSUM(Y7, X7); \
	ROWSUM(Y8, X8); \
	ROWSUM(Y9, X9); \
	VMOVSS     X0, 0(R10); \
	VMOVSS     X7, 4(R10); \
	VMOVSS     X8, 8(R10); \
	VMOVSS     X9, 12(R10); \
	VZEROUPPER

#undef ROW
#define PAIR Q4PAIR

// func dotQ4Q8x4x2AVX512VNNI(x *BlockQ4, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)
TEXT ·dotQ4Q8x4x2AVX512VNNI(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y0+16(FP), DI
	MOVQ y1+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ out0+40(FP), DX
	MOVQ out1+48(FP), R10
	Q4CONST
	KERNEL4X2(18)
	RET

#undef PAIR
#define PAIR Q8PAIR

// func dotQ8Q8x4x2AVX512VNNI(x *BlockQ8, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)
TEXT ·dotQ8Q8x4x2AVX512VNNI(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ y0+16(FP), DI
	MOVQ y1+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ out0+40(FP), DX
	MOVQ out1+48(FP), R10
	Q8CONST
	KERNEL4X2(34)
	RET
