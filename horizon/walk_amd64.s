//go:build amd64

#include "textflag.h"

// walkAVX2 is walkLanes's step loop in AVX2 (walk_amd64.go): the 16 lanes
// as two halves of 8 floats, lanes 0–7 (the block's rows 0 and 1) and
// 8–15 (rows 2 and 3). Every float32 operation is walkLanes's, in its
// order and rounded on its own (no fused multiply-add), and comparisons
// are false on NaN as Go's are, so the bits are the same.
//
// Registers: DI prof (a row of 16 per step), SI rec, CX the steps done, DX
// n, BX the chunks nz, R8 elev, R9 the row stride in bytes, R10 a0 (cells,
// +maj per step), R11 maj, R12 mw (cells), R13 y (32.32 fixed point), R14
// mw in bytes; Y4/Y5 eye, Y6/Y7 the running maxima, Y8/Y9 ext, Y10 inv,
// Y11 dk, Y12 the step's i+1 as a float, Y13 1.0.

DATA lo16<>+0(SB)/8, $0x0000ffff0000ffff
DATA lo16<>+8(SB)/8, $0x0000ffff0000ffff
DATA lo16<>+16(SB)/8, $0x0000ffff0000ffff
DATA lo16<>+24(SB)/8, $0x0000ffff0000ffff
GLOBL lo16<>(SB), RODATA|NOPTR, $32

// 65536.0 (0x47800000) and 2⁻³² (0x2f800000), eight of each.
DATA two16<>+0(SB)/8, $0x4780000047800000
DATA two16<>+8(SB)/8, $0x4780000047800000
DATA two16<>+16(SB)/8, $0x4780000047800000
DATA two16<>+24(SB)/8, $0x4780000047800000
GLOBL two16<>(SB), RODATA|NOPTR, $32
DATA twoM32<>+0(SB)/8, $0x2f8000002f800000
DATA twoM32<>+8(SB)/8, $0x2f8000002f800000
DATA twoM32<>+16(SB)/8, $0x2f8000002f800000
DATA twoM32<>+24(SB)/8, $0x2f8000002f800000
GLOBL twoM32<>(SB), RODATA|NOPTR, $32

// −Inf (0xff800000) and 1.0 (0x3f800000).
DATA negInf<>+0(SB)/4, $0xff800000
GLOBL negInf<>(SB), RODATA|NOPTR, $4
DATA oneF<>+0(SB)/4, $0x3f800000
GLOBL oneF<>(SB), RODATA|NOPTR, $4

// func walkAVX2(prof, rec *float32, n int, elev *float32, pw int, ext *[16]int32, eye *[16]float32, z, sb *float32, nz int, a0, maj, mw int, mf int64, inv, dk float32) int
TEXT ·walkAVX2(SB), NOSPLIT, $0-128
	MOVQ prof+0(FP), DI
	MOVQ rec+8(FP), SI
	MOVQ n+16(FP), DX
	MOVQ eye+48(FP), AX
	VMOVUPS (AX), Y4
	VMOVUPS 32(AX), Y5
	VBROADCASTSS inv+112(FP), Y10
	MOVQ nz+72(FP), BX

	// The slope bounds (slopeBounds): chunk c = nz−1 … 0 of 16 steps,
	// its samples at most z[c] high; lane b's bound h·tn at the chunk's
	// first step when h = z[c] − eye[b] ≥ 0, else h·tf at its last, and
	// at least the later chunks' bound (kept unless s > it: NaN keeps it).
	MOVQ z+56(FP), R12
	MOVQ sb+64(FP), R13
	VBROADCASTSS negInf<>(SB), Y6
	VMOVAPS Y6, Y7
	MOVQ BX, AX

bounds:
	DECQ AX
	JLT bounded
	MOVQ AX, CX
	SHLQ $4, CX
	VBROADCASTSS (SI)(CX*4), Y0
	VMULPS Y0, Y10, Y0
	ADDQ $16, CX
	CMPQ CX, DX
	CMOVQGT DX, CX
	DECQ CX
	VBROADCASTSS (SI)(CX*4), Y1
	VMULPS Y1, Y10, Y1
	VBROADCASTSS (R12)(AX*4), Y2
	VSUBPS Y4, Y2, Y3
	VSUBPS Y5, Y2, Y2
	VXORPS Y11, Y11, Y11
	MOVQ AX, CX
	SHLQ $6, CX
	VMULPS Y0, Y3, Y12
	VMULPS Y1, Y3, Y13
	VCMPPS $0x1d, Y11, Y3, Y14
	VBLENDVPS Y14, Y12, Y13, Y13
	VCMPPS $0x1e, Y6, Y13, Y14
	VBLENDVPS Y14, Y13, Y6, Y6
	VMOVUPS Y6, (R13)(CX*1)
	VMULPS Y0, Y2, Y12
	VMULPS Y1, Y2, Y13
	VCMPPS $0x1d, Y11, Y2, Y14
	VBLENDVPS Y14, Y12, Y13, Y13
	VCMPPS $0x1e, Y7, Y13, Y14
	VBLENDVPS Y14, Y13, Y7, Y7
	VMOVUPS Y7, 32(R13)(CX*1)
	JMP bounds

bounded:
	MOVQ elev+24(FP), R8
	MOVQ pw+32(FP), R9
	SHLQ $2, R9
	MOVQ ext+40(FP), AX
	VMOVDQU (AX), Y8
	VMOVDQU 32(AX), Y9
	MOVQ a0+80(FP), R10
	MOVQ maj+88(FP), R11
	MOVQ mw+96(FP), R12
	MOVQ R12, R14
	SHLQ $2, R14
	MOVQ mf+104(FP), R13 // y = mf at the first step
	VBROADCASTSS dk+116(FP), Y11
	VBROADCASTSS oneF<>(SB), Y13
	VMOVAPS Y13, Y12
	VBROADCASTSS negInf<>(SB), Y6
	VMOVAPS Y6, Y7
	XORQ CX, CX
	TESTQ DX, DX
	JLE done

loop:
	// The lanes' cells: a = a0 + ⌊y⌋·mw; lane 4r+c reads a + r·pw + c
	// and the cell mw further.
	MOVQ R13, AX
	SARQ $32, AX
	IMULQ R12, AX
	ADDQ R10, AX
	LEAQ (R8)(AX*4), AX
	VMOVUPS (AX), X0
	VMOVUPS (AX)(R14*1), X2
	ADDQ R9, AX
	VINSERTF128 $1, (AX), Y0, Y0
	VINSERTF128 $1, (AX)(R14*1), Y2, Y2
	ADDQ R9, AX
	VMOVUPS (AX), X1
	VMOVUPS (AX)(R14*1), X3
	ADDQ R9, AX
	VINSERTF128 $1, (AX), Y1, Y1
	VINSERTF128 $1, (AX)(R14*1), Y3, Y3

	// w = float32(uint32(y))·2⁻³²: the low word's two halves convert
	// exactly and their sum rounds once, as the direct conversion does.
	VMOVD R13, X14
	VPBROADCASTD X14, Y14
	VPSRLD $16, Y14, Y15
	VPAND lo16<>(SB), Y14, Y14
	VCVTDQ2PS Y15, Y15
	VMULPS two16<>(SB), Y15, Y15
	VCVTDQ2PS Y14, Y14
	VADDPS Y15, Y14, Y14
	VMULPS twoM32<>(SB), Y14, Y14

	// z = z0 + w·(z1 − z0)
	VSUBPS Y0, Y2, Y2
	VMULPS Y14, Y2, Y2
	VADDPS Y2, Y0, Y0
	VSUBPS Y1, Y3, Y3
	VMULPS Y14, Y3, Y3
	VADDPS Y3, Y1, Y1

	// t = inv·rec[i], drop = dk·(i+1)·(i+1), s = (z − drop − eye)·t
	VBROADCASTSS (SI), Y15
	VMULPS Y15, Y10, Y15
	VMULPS Y12, Y11, Y2
	VMULPS Y12, Y2, Y2
	VSUBPS Y2, Y0, Y0
	VSUBPS Y4, Y0, Y0
	VMULPS Y15, Y0, Y0
	VSUBPS Y2, Y1, Y1
	VSUBPS Y5, Y1, Y1
	VMULPS Y15, Y1, Y1

	// The lanes still on their lines (i < ext) raise their maxima where
	// s > cur (ordered: false on NaN).
	VMOVD CX, X3
	VPBROADCASTD X3, Y3
	VPCMPGTD Y3, Y8, Y2
	VPCMPGTD Y3, Y9, Y3
	VCMPPS $0x1e, Y6, Y0, Y14
	VANDPS Y2, Y14, Y14
	VBLENDVPS Y14, Y0, Y6, Y6
	VCMPPS $0x1e, Y7, Y1, Y15
	VANDPS Y3, Y15, Y15
	VBLENDVPS Y15, Y1, Y7, Y7
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)

	// After each chunk c of 16 steps (c < nz): stop when every lane still
	// on its line (i+1 < ext) has cur ≥ sb[c] (lanesDone).
	INCQ CX
	TESTQ $15, CX
	JNE next
	MOVQ CX, AX
	SHRQ $4, AX
	CMPQ AX, BX
	JGE next
	SHLQ $6, AX
	ADDQ sb+64(FP), AX
	VCMPPS $0x1d, (AX), Y6, Y14
	VCMPPS $0x1d, 32(AX), Y7, Y15
	VMOVD CX, X3
	VPBROADCASTD X3, Y3
	VPCMPGTD Y3, Y8, Y2
	VPCMPGTD Y3, Y9, Y3
	VANDNPS Y2, Y14, Y2
	VANDNPS Y3, Y15, Y3
	VORPS Y3, Y2, Y2
	VPTEST Y2, Y2
	JEQ done

next:
	ADDQ mf+104(FP), R13
	ADDQ R11, R10
	ADDQ $4, SI
	ADDQ $64, DI
	VADDPS Y13, Y12, Y12
	CMPQ CX, DX
	JLT loop

done:
	VZEROUPPER
	MOVQ CX, ret+120(FP)
	RET
