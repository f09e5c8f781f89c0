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
