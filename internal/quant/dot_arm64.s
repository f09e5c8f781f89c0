//go:build !purego

#include "textflag.h"

// R0 walks x, R1 walks y (post-incremented loads), R2 counts blocks; V0
// and V1 accumulate 4 float32 partial sums each (even and odd blocks).
// Per block, BLOCK leaves the int32 partial sums in V7 and SCALE the
// product of the two scales in V16.S[0]. Every product is exact for all
// int8 values: SMULL/SDOT multiply signed bytes exactly, and the int16
// lanes of SMLAL add at most 4 products |(x-8)·y| ≤ 8·128.
//
// Go's assembler has no mnemonics for some of the instructions; they are
// written as WORDs, named below.

#define FCVTL_V16   WORD $0x0e217a10 // fcvtl  v16.4s, v16.4h
#define FMUL_D      WORD $0x5fb09210 // fmul   s16, s16, v16.s[1]
#define SCVTF_V7    WORD $0x4e21d8e7 // scvtf  v7.4s, v7.4s
#define FMLA_V0     WORD $0x4f9010e0 // fmla   v0.4s, v7.4s, v16.s[0]
#define FMLA_V1     WORD $0x4f9010e1 // fmla   v1.4s, v7.4s, v16.s[0]
#define FADD_V0_V1  WORD $0x4e21d400 // fadd   v0.4s, v0.4s, v1.4s
#define FADDP_V0    WORD $0x6e20d400 // faddp  v0.4s, v0.4s, v0.4s
#define FADDP_S0    WORD $0x7e30d800 // faddp  s0, v0.2s
#define SMULL_Q4L   WORD $0x0e24c066 // smull  v6.8h, v3.8b, v4.8b
#define SMLAL2_Q4L  WORD $0x4e248066 // smlal2 v6.8h, v3.16b, v4.16b
#define SMLAL_Q4H   WORD $0x0e258046 // smlal  v6.8h, v2.8b, v5.8b
#define SMLAL2_Q4H  WORD $0x4e258046 // smlal2 v6.8h, v2.16b, v5.16b
#define SADDLP_V6   WORD $0x4e6028c7 // saddlp v7.4s, v6.8h
#define SADALP_V6   WORD $0x4e6068c7 // sadalp v7.4s, v6.8h
#define SADALP_V17  WORD $0x4e606a27 // sadalp v7.4s, v17.8h
#define SMULL_Q8L   WORD $0x0e24c046 // smull  v6.8h, v2.8b, v4.8b
#define SMULL2_Q8L  WORD $0x4e24c051 // smull2 v17.8h, v2.16b, v4.16b
#define SMULL_Q8H   WORD $0x0e25c066 // smull  v6.8h, v3.8b, v5.8b
#define SMULL2_Q8H  WORD $0x4e25c071 // smull2 v17.8h, v3.16b, v5.16b
#define SDOT_32     WORD $0x4e849467 // sdot   v7.4s, v3.16b, v4.16b
#define SDOT_25     WORD $0x4e859447 // sdot   v7.4s, v2.16b, v5.16b
#define SDOT_24     WORD $0x4e849447 // sdot   v7.4s, v2.16b, v4.16b
#define SDOT_35     WORD $0x4e859467 // sdot   v7.4s, v3.16b, v5.16b

// SCALE loads x.D into V16.H[0] (the 4-byte load also brings x.Qs[0:2]
// into H[1] and clears the rest of V16, so no block waits on the last) and
// y.D into V16.H[1], converts them, and multiplies them into V16.S[0].
#define SCALE \
	FMOVS.P 2(R0), F16; \
	VLD1.P  2(R1), V16.H[1]; \
	FCVTL_V16; \
	FMUL_D

// KERNEL runs BLOCK over the R2 ≥ 1 blocks, two per iteration; R2 ends as -2 (even
// count) or -1 (one block left over). The sum is left in F0.
#define KERNEL \
	VEOR V0.B16, V0.B16, V0.B16; \
	VEOR V1.B16, V1.B16, V1.B16; \
	SUBS $2, R2, R2; \
	BLT  tail; \
pairs: \
	SCALE; \
	BLOCK; \
	SCVTF_V7; \
	FMLA_V0; \
	SCALE; \
	BLOCK; \
	SCVTF_V7; \
	FMLA_V1; \
	SUBS $2, R2, R2; \
	BGE  pairs; \
tail: \
	TBZ  $0, R2, sum; \
	SCALE; \
	BLOCK; \
	SCVTF_V7; \
	FMLA_V0; \
sum: \
	FADD_V0_V1; \
	FADDP_V0; \
	FADDP_S0

// Q4NIBBLES loads the nibbles of a Q4_0 block as signed bytes x-8, weights
// 0-15 into V3 and 16-31 into V2, and y's 32 bytes into V4, V5. V31 holds
// 0x0f bytes, V30 8 bytes.
#define Q4NIBBLES \
	VLD1.P 16(R0), [V2.B16]; \
	VLD1.P 32(R1), [V4.B16, V5.B16]; \
	VAND   V31.B16, V2.B16, V3.B16; \
	VUSHR  $4, V2.B16, V2.B16; \
	VSUB   V30.B16, V3.B16, V3.B16; \
	VSUB   V30.B16, V2.B16, V2.B16

// Q8LOAD loads x's 32 bytes into V2, V3 and y's into V4, V5.
#define Q8LOAD \
	VLD1.P 32(R0), [V2.B16, V3.B16]; \
	VLD1.P 32(R1), [V4.B16, V5.B16]

#define BLOCK \
	Q4NIBBLES; \
	SMULL_Q4L; \
	SMLAL2_Q4L; \
	SMLAL_Q4H; \
	SMLAL2_Q4H; \
	SADDLP_V6

// func dotQ4Q8NEON(x *BlockQ4, y *BlockQ8, n int) float32
TEXT ·dotQ4Q8NEON(SB), NOSPLIT, $0-28
	MOVD  x+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  n+16(FP), R2
	VMOVI $15, V31.B16
	VMOVI $8, V30.B16
	KERNEL
	FMOVS F0, ret+24(FP)
	RET

#undef BLOCK
#define BLOCK \
	Q8LOAD; \
	SMULL_Q8L; \
	SMULL2_Q8L; \
	SADDLP_V6; \
	SADALP_V17; \
	SMULL_Q8H; \
	SMULL2_Q8H; \
	SADALP_V6; \
	SADALP_V17

// func dotQ8Q8NEON(x, y *BlockQ8, n int) float32
TEXT ·dotQ8Q8NEON(SB), NOSPLIT, $0-28
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	KERNEL
	FMOVS F0, ret+24(FP)
	RET

#undef BLOCK
#define BLOCK \
	Q4NIBBLES; \
	VMOVI $0, V7.B16; \
	SDOT_32; \
	SDOT_25

// func dotQ4Q8SDOT(x *BlockQ4, y *BlockQ8, n int) float32
TEXT ·dotQ4Q8SDOT(SB), NOSPLIT, $0-28
	MOVD  x+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  n+16(FP), R2
	VMOVI $15, V31.B16
	VMOVI $8, V30.B16
	KERNEL
	FMOVS F0, ret+24(FP)
	RET

#undef BLOCK
#define BLOCK \
	Q8LOAD; \
	VMOVI $0, V7.B16; \
	SDOT_24; \
	SDOT_35

// func dotQ8Q8SDOT(x, y *BlockQ8, n int) float32
TEXT ·dotQ8Q8SDOT(SB), NOSPLIT, $0-28
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	KERNEL
	FMOVS F0, ret+24(FP)
	RET

// Four rows at once: R0, R3, R4 and R5 walk the four rows of x (stride
// bytes apart), R1 walks y, R2 counts blocks. Each block's y is loaded once:
// its scale into V20.H[0], its 32 bytes into V4, V5. Each row then runs the
// one-row kernel's block exactly (its scale product, SDOTs, conversion and
// FMLA into its own even/odd accumulators: V0/V1, V8/V9, V10/V11,
// V12/V13) and the same final reduction, so each result is bit for bit
// the one-row kernel's.

#define INS_Y_D     WORD $0x6e060690 // mov    v16.h[1], v20.h[0]
#define FMLA_V8     WORD $0x4f9010e8 // fmla   v8.4s, v7.4s, v16.s[0]
#define FMLA_V9     WORD $0x4f9010e9 // fmla   v9.4s, v7.4s, v16.s[0]
#define FMLA_V10    WORD $0x4f9010ea // fmla   v10.4s, v7.4s, v16.s[0]
#define FMLA_V11    WORD $0x4f9010eb // fmla   v11.4s, v7.4s, v16.s[0]
#define FMLA_V12    WORD $0x4f9010ec // fmla   v12.4s, v7.4s, v16.s[0]
#define FMLA_V13    WORD $0x4f9010ed // fmla   v13.4s, v7.4s, v16.s[0]
#define FADD_V8_V9  WORD $0x4e29d508 // fadd   v8.4s, v8.4s, v9.4s
#define FADDP_V8    WORD $0x6e28d508 // faddp  v8.4s, v8.4s, v8.4s
#define FADDP_S8    WORD $0x7e30d908 // faddp  s8, v8.2s
#define FADD_V10    WORD $0x4e2bd54a // fadd   v10.4s, v10.4s, v11.4s
#define FADDP_V10   WORD $0x6e2ad54a // faddp  v10.4s, v10.4s, v10.4s
#define FADDP_S10   WORD $0x7e30d94a // faddp  s10, v10.2s
#define FADD_V12    WORD $0x4e2dd58c // fadd   v12.4s, v12.4s, v13.4s
#define FADDP_V12   WORD $0x6e2cd58c // faddp  v12.4s, v12.4s, v12.4s
#define FADDP_S12   WORD $0x7e30d98c // faddp  s12, v12.2s

// ROWSCALE is SCALE for row pointer R with y's scale already in V20.H[0].
#define ROWSCALE(R) \
	FMOVS.P 2(R), F16; \
	INS_Y_D; \
	FCVTL_V16; \
	FMUL_D

// Q4ROW runs one Q4_0 row's block at R into accumulator FMLA.
#define Q4ROW(R, FMLA) \
	ROWSCALE(R); \
	VLD1.P 16(R), [V2.B16]; \
	VAND   V31.B16, V2.B16, V3.B16; \
	VUSHR  $4, V2.B16, V2.B16; \
	VSUB   V30.B16, V3.B16, V3.B16; \
	VSUB   V30.B16, V2.B16, V2.B16; \
	VMOVI  $0, V7.B16; \
	SDOT_32; \
	SDOT_25; \
	SCVTF_V7; \
	FMLA

// Q8ROW runs one Q8_0 row's block at R into accumulator FMLA.
#define Q8ROW(R, FMLA) \
	ROWSCALE(R); \
	VLD1.P 32(R), [V2.B16, V3.B16]; \
	VMOVI  $0, V7.B16; \
	SDOT_24; \
	SDOT_35; \
	SCVTF_V7; \
	FMLA

// YLOAD loads y's block: its scale into V20.H[0], its bytes into V4, V5.
#define YLOAD \
	VLD1.P 2(R1), V20.H[0]; \
	VLD1.P 32(R1), [V4.B16, V5.B16]

// KERNEL4 runs ROWS (the four rows' blocks into the even accumulators
// when EVEN, the odd ones otherwise) over the R2 ≥ 1 blocks, two per
// iteration, and stores the four sums at R6.
#define KERNEL4 \
	VEOR V0.B16, V0.B16, V0.B16; \
	VEOR V1.B16, V1.B16, V1.B16; \
	VEOR V8.B16, V8.B16, V8.B16; \
	VEOR V9.B16, V9.B16, V9.B16; \
	VEOR V10.B16, V10.B16, V10.B16; \
	VEOR V11.B16, V11.B16, V11.B16; \
	VEOR V12.B16, V12.B16, V12.B16; \
	VEOR V13.B16, V13.B16, V13.B16; \
	SUBS $2, R2, R2; \
	BLT  tail4; \
pairs4: \
	YLOAD; \
	ROWS(FMLA_V0, FMLA_V8, FMLA_V10, FMLA_V12); \
	YLOAD; \
	ROWS(FMLA_V1, FMLA_V9, FMLA_V11, FMLA_V13); \
	SUBS $2, R2, R2; \
	BGE  pairs4; \
tail4: \
	TBZ  $0, R2, sum4; \
	YLOAD; \
	ROWS(FMLA_V0, FMLA_V8, FMLA_V10, FMLA_V12); \
sum4: \
	FADD_V0_V1; \
	FADDP_V0; \
	FADDP_S0; \
	FADD_V8_V9; \
	FADDP_V8; \
	FADDP_S8; \
	FADD_V10; \
	FADDP_V10; \
	FADDP_S10; \
	FADD_V12; \
	FADDP_V12; \
	FADDP_S12; \
	FMOVS F0, 0(R6); \
	FMOVS F8, 4(R6); \
	FMOVS F10, 8(R6); \
	FMOVS F12, 12(R6)

// ROWPTRS sets R3, R4, R5 to the rows after R0's, R7 bytes apart.
#define ROWPTRS \
	ADD R7, R0, R3; \
	ADD R7, R3, R4; \
	ADD R7, R4, R5

#define ROWS(F0_, F1_, F2_, F3_) \
	Q4ROW(R0, F0_); \
	Q4ROW(R3, F1_); \
	Q4ROW(R4, F2_); \
	Q4ROW(R5, F3_)

// func dotQ4Q8x4SDOT(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ4Q8x4SDOT(SB), NOSPLIT, $0-40
	MOVD x+0(FP), R0
	MOVD stride+8(FP), R7
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	MOVD out+32(FP), R6
	ROWPTRS
	VMOVI $15, V31.B16
	VMOVI $8, V30.B16
	KERNEL4
	RET

#undef ROWS
#define ROWS(F0_, F1_, F2_, F3_) \
	Q8ROW(R0, F0_); \
	Q8ROW(R3, F1_); \
	Q8ROW(R4, F2_); \
	Q8ROW(R5, F3_)

// func dotQ8Q8x4SDOT(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)
TEXT ·dotQ8Q8x4SDOT(SB), NOSPLIT, $0-40
	MOVD x+0(FP), R0
	MOVD stride+8(FP), R7
	MOVD y+16(FP), R1
	MOVD n+24(FP), R2
	MOVD out+32(FP), R6
	ROWPTRS
	KERNEL4
	RET
