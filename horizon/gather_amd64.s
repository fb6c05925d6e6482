//go:build goexperiment.simd

#include "textflag.h"

// func gather2(prof *float32, i0, i1 *[16]int32, t0, t1 *[16]float32)
//
// t0[b] = prof[i0[b]], t1[b] = prof[i1[b]] for b = 0…15: two AVX-512
// gathers (simd/archsimd has none). The caller guarantees every index lies
// inside prof.
TEXT ·gather2(SB), NOSPLIT, $0-40
	MOVQ      prof+0(FP), AX
	MOVQ      i0+8(FP), BX
	MOVQ      i1+16(FP), CX
	MOVQ      t0+24(FP), DX
	MOVQ      t1+32(FP), SI
	VMOVDQU32 (BX), Z1
	VMOVDQU32 (CX), Z2
	KXNORW    K0, K0, K1
	KXNORW    K0, K0, K2
	VGATHERDPS (AX)(Z1*4), K1, Z3
	VGATHERDPS (AX)(Z2*4), K2, Z4
	VMOVUPS   Z3, (DX)
	VMOVUPS   Z4, (SI)
	VZEROUPPER
	RET
