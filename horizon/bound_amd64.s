//go:build amd64

#include "textflag.h"
#include "go_asm.h"

// boundAVX2 is boundLanes in AVX2 (avx2_amd64.go): the lanes' slope bounds
// sHi, sLo as two halves of 8 floats, then sector by sector the
// decimated profile rows at the near and far slots against them. Every
// float32 operation is boundLanes's, in its order and rounded on its own;
// the steps are truncated to 64-bit integers as Go's int(float32) is;
// comparisons are ordered (false on NaN) as Go's are.
//
// Registers: DI the BlockWorker, R8 the boundJob, R9 secInvX, R10 the
// lanes' n, R11 their decStart, R12 the decimated rows, CX the sector k,
// BX hid, SI vis; Y0/Y1 sHi, Y2/Y3 sLo.

DATA halfS<>+0(SB)/4, $0x3f000000
GLOBL halfS<>(SB), RODATA|NOPTR, $4

// SLOPES sets Y to the lanes' slope bound from z + tau (the lanes' half
// at byte OFF) − drop: z·A when it is at least 0, else z·B.
#define SLOPES(Z, DROP, A, B, OFF, Y) \
	VBROADCASTSS Z(R8), Y4; \
	VADDPS OFF(DX), Y4, Y4; \
	VBROADCASTSS DROP(R8), Y5; \
	VSUBPS Y5, Y4, Y4; \
	VBROADCASTSS B(R8), Y5; \
	VMULPS Y5, Y4, Y; \
	VBROADCASTSS A(R8), Y5; \
	VMULPS Y5, Y4, Y5; \
	VXORPS Y6, Y6, Y6; \
	VCMPPS $0x1d, Y6, Y4, Y6; \
	VBLENDVPS Y6, Y5, Y, Y

// STEP sets AX to max(min(int(float32(D·inv) − ½), n[k]), 0), inv in X7.
#define STEP(D) \
	VMULSS D(R8), X7, X4; \
	VSUBSS halfS<>(SB), X4, X4; \
	VCVTTSS2SIQ X4, AX; \
	MOVLQSX (R10)(CX*4), DX; \
	CMPQ AX, DX; \
	CMOVQGT DX, AX; \
	XORQ DX, DX; \
	TESTQ AX, AX; \
	CMOVQLT DX, AX

// func boundAVX2(bw *BlockWorker, j *boundJob)
TEXT ·boundAVX2(SB), NOSPLIT, $0-16
	MOVQ bw+0(FP), DI
	MOVQ j+8(FP), R8
	LEAQ BlockWorker_tau(DI), DX
	SLOPES(boundJob_zmax, boundJob_drpNear, boundJob_invNear, boundJob_invFar, 0, Y0)
	SLOPES(boundJob_zmax, boundJob_drpNear, boundJob_invNear, boundJob_invFar, 32, Y1)
	SLOPES(boundJob_zmin, boundJob_drpFar, boundJob_invFar, boundJob_invNear, 0, Y2)
	SLOPES(boundJob_zmin, boundJob_drpFar, boundJob_invFar, boundJob_invNear, 32, Y3)
	MOVQ BlockWorker_m(DI), R9
	MOVQ Model_secInvX(R9), R9
	MOVQ BlockWorker_n(DI), R10
	MOVQ BlockWorker_decStart(DI), R11
	MOVQ BlockWorker_dec(DI), R12
	MOVWQZX boundJob_hid(R8), BX
	MOVWQZX boundJob_vis(R8), SI
	MOVQ boundJob_kLo(R8), CX

sector:
	CMPQ CX, boundJob_kHi(R8)
	JGT done
	MOVQ BX, AX
	ORQ SI, AX
	JEQ done
	VMOVSS (R9)(CX*4), X7
	// near: the decimated row below the near slot, st + jn>>decShift
	STEP(boundJob_dNear)
	SHRQ $const_decShift, AX
	MOVLQSX (R11)(CX*4), DX
	ADDQ DX, AX
	SHLQ $6, AX
	VCMPPS $0x11, (R12)(AX*1), Y0, Y4
	VCMPPS $0x11, 32(R12)(AX*1), Y1, Y5
	VMOVMSKPS Y4, AX
	VMOVMSKPS Y5, DX
	SHLQ $8, DX
	ORQ DX, AX
	ANDQ AX, BX
	// far: the row above the far slot, st + ⌈jf / 2^decShift⌉
	STEP(boundJob_dFar)
	ADDQ $((1<<const_decShift)-1), AX
	SHRQ $const_decShift, AX
	MOVLQSX (R11)(CX*4), DX
	ADDQ DX, AX
	SHLQ $6, AX
	VCMPPS $0x1d, (R12)(AX*1), Y2, Y4
	VCMPPS $0x1d, 32(R12)(AX*1), Y3, Y5
	VMOVMSKPS Y4, AX
	VMOVMSKPS Y5, DX
	SHLQ $8, DX
	ORQ DX, AX
	ANDQ AX, SI
	INCQ CX
	JMP sector

done:
	MOVW BX, boundJob_hid(R8)
	MOVW SI, boundJob_vis(R8)
	VZEROUPPER
	RET
