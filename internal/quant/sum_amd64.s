//go:build !purego

#include "textflag.h"

// func sumWordsAVX2(p *uint64, n int) uint64
// n ≥ 1 steps of 256 bytes: eight 32-byte loads into eight accumulators,
// and four prefetches of the lines 2 KiB ahead.
TEXT ·sumWordsAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

loop:
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	PREFETCHT0 2176(SI)
	PREFETCHT0 2240(SI)
	VPADDQ     0(SI), Y0, Y0
	VPADDQ     32(SI), Y1, Y1
	VPADDQ     64(SI), Y2, Y2
	VPADDQ     96(SI), Y3, Y3
	VPADDQ     128(SI), Y4, Y4
	VPADDQ     160(SI), Y5, Y5
	VPADDQ     192(SI), Y6, Y6
	VPADDQ     224(SI), Y7, Y7
	ADDQ       $256, SI
	DECQ       CX
	JNZ        loop

	VPADDQ       Y1, Y0, Y0
	VPADDQ       Y3, Y2, Y2
	VPADDQ       Y5, Y4, Y4
	VPADDQ       Y7, Y6, Y6
	VPADDQ       Y2, Y0, Y0
	VPADDQ       Y6, Y4, Y4
	VPADDQ       Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDQ       X1, X0, X0
	VMOVQ        X0, AX
	VZEROUPPER
	MOVQ         AX, ret+16(FP)
	RET

// func sumWordsAVX512(p *uint64, n int) uint64
// The same with AVX-512: n ≥ 1 steps of 512 bytes, eight 64-byte loads,
// and no software prefetch: one thread on the 2-vCPU Xeon VM read 15.5
// GB/s without it and 14.0 with the AVX2 loop's (the AVX2 loop: 14.5 with,
// 13.0 without; likwid-bench load_avx512 16.2).
TEXT ·sumWordsAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

loop512:
	VPADDQ     0(SI), Z0, Z0
	VPADDQ     64(SI), Z1, Z1
	VPADDQ     128(SI), Z2, Z2
	VPADDQ     192(SI), Z3, Z3
	VPADDQ     256(SI), Z4, Z4
	VPADDQ     320(SI), Z5, Z5
	VPADDQ     384(SI), Z6, Z6
	VPADDQ     448(SI), Z7, Z7
	ADDQ       $512, SI
	DECQ       CX
	JNZ        loop512

	VPADDQ        Z1, Z0, Z0
	VPADDQ        Z3, Z2, Z2
	VPADDQ        Z5, Z4, Z4
	VPADDQ        Z7, Z6, Z6
	VPADDQ        Z2, Z0, Z0
	VPADDQ        Z6, Z4, Z4
	VPADDQ        Z4, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDQ        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDQ        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDQ        X1, X0, X0
	VMOVQ         X0, AX
	VZEROUPPER
	MOVQ          AX, ret+16(FP)
	RET
