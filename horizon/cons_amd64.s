//go:build amd64

#include "textflag.h"
#include "go_asm.h"

// consAVX2 is consLanes16 in AVX2 (avx2_amd64.go): one step of the
// conservative block walk, the 16 lanes as two halves of 8 floats (the
// block's rows 0–1 and 2–3). Every float32 operation is consLanes16's (and
// so Model.chordLow's and segLow's), in its order and rounded on its own;
// comparisons are ordered (false on NaN) as Go's are.
//
// Registers: R8 the arguments, SI the segment, CX its index, DI the
// segments' hull bits, R9 the lanes in the grid at some segment (in), R12
// the lanes the screen left (need), R13 the segment's hull, R14 gw; in the
// evaluation R10/R11 the patch's elevations and their row stride in bytes,
// BX/AX the g2 table's and its row stride; Y14/Y15 the lanes' lower bounds
// z.

DATA laneBits<>+0(SB)/8, $0x0000000200000001
DATA laneBits<>+8(SB)/8, $0x0000000800000004
DATA laneBits<>+16(SB)/8, $0x0000002000000010
DATA laneBits<>+24(SB)/8, $0x0000008000000040
GLOBL laneBits<>(SB), RODATA|NOPTR, $32
DATA minusOne<>+0(SB)/4, $0xbf800000
GLOBL minusOne<>(SB), RODATA|NOPTR, $4
DATA posInf<>+0(SB)/4, $0x7f800000
GLOBL posInf<>(SB), RODATA|NOPTR, $4

// LANEMASK sets V to all ones in the lanes whose bit (1 … 128) is set in
// the low byte of GPR; T is scratch.
#define LANEMASK(GPR, XV, V, T) \
	VMOVD GPR, XV; \
	VPBROADCASTD XV, V; \
	VMOVDQU laneBits<>(SB), T; \
	VPAND T, V, V; \
	VPCMPEQD T, V, V

// F sets R to the bilinear patch at (U, V): ((z00 + bu·U) + bv·V) +
// (cuv·U)·V, with z00, bu, bv, cuv in Y0, Y1, Y2, Y4 (segLow); T is
// scratch.
#define F(U, V, R, T) \
	VMULPS U, Y1, T; \
	VADDPS T, Y0, R; \
	VMULPS V, Y2, T; \
	VADDPS T, R, R; \
	VMULPS U, Y4, T; \
	VMULPS V, T, T; \
	VADDPS T, R, R

// A half's segment bound, in three parts: HALFA loads the half's patches
// (elevations from R10, row stride R11 bytes), evaluates the chord's ends
// and jumps to SKIP when no lane's quadratic curves up; HALFV takes its
// vertex where it lies inside; HALFB subtracts the slack (g2 from BX, row
// stride AX bytes) and lowers Z, the half's running bound, in the lanes of
// hull bits R13 >> SH.
#define HALFA(SKIP) \
	VMOVUPS (R10), X0; \
	VINSERTF128 $1, (R10)(R11*1), Y0, Y0; \
	VMOVUPS 4(R10), X1; \
	VINSERTF128 $1, 4(R10)(R11*1), Y1, Y1; \
	VMOVUPS (R10)(R11*1), X2; \
	VINSERTF128 $1, (R10)(R11*2), Y2, Y2; \
	VMOVUPS 4(R10)(R11*1), X3; \
	VINSERTF128 $1, 4(R10)(R11*2), Y3, Y3; \
	VSUBPS Y1, Y0, Y4; \
	VSUBPS Y2, Y4, Y4; \
	VADDPS Y3, Y4, Y4; \
	VSUBPS Y0, Y1, Y1; \
	VSUBPS Y0, Y2, Y2; \
	VBROADCASTSS consSeg_ua(SI), Y5; \
	VBROADCASTSS consSeg_va(SI), Y6; \
	F(Y5, Y6, Y7, Y8); \
	VBROADCASTSS consSeg_ub(SI), Y5; \
	VBROADCASTSS consSeg_vb(SI), Y6; \
	F(Y5, Y6, Y9, Y8); \
	VCMPPS $0x11, Y7, Y9, Y8; \
	VBLENDVPS Y8, Y9, Y7, Y7; \
	VBROADCASTSS consSeg_dd(SI), Y5; \
	VMULPS Y5, Y4, Y5; \
	VXORPS Y6, Y6, Y6; \
	VCMPPS $0x1e, Y6, Y5, Y6; \
	VMOVMSKPS Y6, DX; \
	TESTL DX, DX; \
	JEQ SKIP

#define HALFV \
	VBROADCASTSS consSeg_du(SI), Y8; \
	VBROADCASTSS consSeg_dv(SI), Y9; \
	VBROADCASTSS consSeg_w(SI), Y10; \
	VMULPS Y8, Y1, Y11; \
	VMULPS Y9, Y2, Y12; \
	VADDPS Y12, Y11, Y11; \
	VMULPS Y10, Y4, Y12; \
	VADDPS Y12, Y11, Y11; \
	VADDPS Y5, Y5, Y12; \
	VDIVPS Y12, Y11, Y11; \
	VMULPS Y8, Y11, Y12; \
	VBROADCASTSS consSeg_ua(SI), Y13; \
	VSUBPS Y12, Y13, Y13; \
	VMULPS Y9, Y11, Y12; \
	VBROADCASTSS consSeg_va(SI), Y10; \
	VSUBPS Y12, Y10, Y10; \
	F(Y13, Y10, Y12, Y9); \
	VCMPPS $0x11, Y7, Y12, Y9; \
	VANDPS Y6, Y9, Y9; \
	VBROADCASTSS minusOne<>(SB), Y8; \
	VCMPPS $0x1e, Y8, Y11, Y8; \
	VANDPS Y8, Y9, Y9; \
	VXORPS Y8, Y8, Y8; \
	VCMPPS $0x11, Y8, Y11, Y8; \
	VANDPS Y8, Y9, Y9; \
	VBLENDVPS Y9, Y12, Y7, Y7

#define HALFB(Z, SH) \
	VMOVUPS (BX), X8; \
	VINSERTF128 $1, (BX)(AX*1), Y8, Y8; \
	VBROADCASTSS consArgs_bulge(R8), Y9; \
	VMULPS Y9, Y8, Y8; \
	VSUBPS Y8, Y7, Y7; \
	VBROADCASTSS consArgs_pad(R8), Y9; \
	VSUBPS Y9, Y7, Y7; \
	MOVQ R13, DX; \
	SHRQ $SH, DX; \
	LANEMASK(DX, X9, Y9, Y10); \
	VCMPPS $0x11, Z, Y7, Y8; \
	VANDPS Y9, Y8, Y8; \
	VBLENDVPS Y8, Y7, Z, Z

// func consAVX2(a *consArgs)
TEXT ·consAVX2(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), R8
	MOVQ consArgs_hull(R8), DI
	MOVQ consArgs_gw(R8), R14
	MOVQ consArgs_eye(R8), AX
	VMOVUPS (AX), Y4
	VMOVUPS 32(AX), Y5
	MOVQ consArgs_cur(R8), AX
	VMOVUPS (AX), Y6
	VMOVUPS 32(AX), Y7
	VBROADCASTSS consArgs_drop(R8), Y8
	VBROADCASTSS consArgs_inv(R8), Y9

	// The screen: lanes for which some patch's highest corner gives a
	// slope of at most cur cannot rise.
	XORQ BX, BX // pass
	MOVQ consArgs_segs(R8), SI
	XORQ CX, CX

screen:
	CMPQ CX, consArgs_nsegs(R8)
	JGE screened
	MOVWQZX (DI)(CX*2), R13
	TESTQ R13, R13
	JEQ screenNext
	MOVLQSX consSeg_py(SI), AX
	ADDQ consArgs_row(R8), AX
	ADDQ $const_consBorder, AX
	IMULQ R14, AX
	MOVLQSX consSeg_px(SI), R10
	ADDQ consArgs_col(R8), R10
	ADDQ $const_consBorder, R10
	ADDQ R10, AX
	MOVQ consArgs_top(R8), R10
	LEAQ (R10)(AX*4), R10
	MOVQ R14, R11
	SHLQ $2, R11
	VMOVUPS (R10), X0
	VINSERTF128 $1, (R10)(R11*1), Y0, Y0
	LEAQ (R10)(R11*2), R10
	VMOVUPS (R10), X1
	VINSERTF128 $1, (R10)(R11*1), Y1, Y1
	VSUBPS Y8, Y0, Y0
	VSUBPS Y4, Y0, Y0
	VMULPS Y9, Y0, Y0
	VCMPPS $0x12, Y6, Y0, Y0
	VSUBPS Y8, Y1, Y1
	VSUBPS Y5, Y1, Y1
	VMULPS Y9, Y1, Y1
	VCMPPS $0x12, Y7, Y1, Y1
	VMOVMSKPS Y0, AX
	VMOVMSKPS Y1, R10
	SHLQ $8, R10
	ORQ R10, AX
	ANDQ R13, AX
	ORQ AX, BX
	MOVQ BX, AX
	NOTQ AX
	ANDQ consArgs_live(R8), AX
	JEQ ret

screenNext:
	ADDQ $consSeg__size, SI
	INCQ CX
	JMP screen

screened:
	MOVQ BX, R12
	NOTQ R12
	ANDQ consArgs_live(R8), R12 // need
	VBROADCASTSS posInf<>(SB), Y14
	VMOVAPS Y14, Y15
	XORQ R9, R9
	MOVQ consArgs_segs(R8), SI
	XORQ CX, CX

eval:
	CMPQ CX, consArgs_nsegs(R8)
	JGE evaluated
	MOVWQZX (DI)(CX*2), R13
	TESTQ R13, R13
	JEQ evalNext
	ORQ R13, R9
	// The patch (qx, qy) = (col + px, row + py): its elevations at
	// (qy + blockPad)·ew + qx + blockPad, its g2 at (qy + consBorder)·gw
	// + qx + consBorder.
	MOVLQSX consSeg_py(SI), R10
	ADDQ consArgs_row(R8), R10
	MOVLQSX consSeg_px(SI), R11
	ADDQ consArgs_col(R8), R11
	LEAQ const_consBorder(R10), BX
	IMULQ R14, BX
	LEAQ const_consBorder(BX)(R11*1), BX
	MOVQ consArgs_g2(R8), AX
	LEAQ (AX)(BX*4), BX
	ADDQ $const_blockPad, R10
	IMULQ consArgs_ew(R8), R10
	LEAQ const_blockPad(R10)(R11*1), R10
	MOVQ consArgs_elev(R8), AX
	LEAQ (AX)(R10*4), R10
	MOVQ consArgs_ew(R8), R11
	SHLQ $2, R11
	MOVQ R14, AX
	SHLQ $2, AX
	HALFA(skip0)
	HALFV

skip0:
	HALFB(Y14, 0)
	LEAQ (R10)(R11*2), R10
	LEAQ (BX)(AX*2), BX
	HALFA(skip1)
	HALFV

skip1:
	HALFB(Y15, 8)

	// z only falls with more segments: once no lane left to decide can
	// rise, none will.
	MOVQ consArgs_eye(R8), DX
	MOVQ consArgs_cur(R8), BX
	VBROADCASTSS consArgs_drop(R8), Y0
	VBROADCASTSS consArgs_inv(R8), Y1
	VSUBPS Y0, Y14, Y2
	VSUBPS (DX), Y2, Y2
	VMULPS Y1, Y2, Y2
	VCMPPS $0x12, (BX), Y2, Y2
	VSUBPS Y0, Y15, Y3
	VSUBPS 32(DX), Y3, Y3
	VMULPS Y1, Y3, Y3
	VCMPPS $0x12, 32(BX), Y3, Y3
	VMOVMSKPS Y2, AX
	VMOVMSKPS Y3, DX
	SHLQ $8, DX
	ORQ DX, AX
	ANDQ R9, AX
	NOTQ AX
	ANDQ R12, AX
	JEQ ret

evalNext:
	ADDQ $consSeg__size, SI
	INCQ CX
	JMP eval

evaluated:
	// cur = sl where sl > cur, for the lanes live and in the grid.
	MOVQ consArgs_live(R8), R13
	ANDQ R9, R13
	MOVQ consArgs_eye(R8), DX
	MOVQ consArgs_cur(R8), BX
	VBROADCASTSS consArgs_drop(R8), Y0
	VBROADCASTSS consArgs_inv(R8), Y1
	VSUBPS Y0, Y14, Y2
	VSUBPS (DX), Y2, Y2
	VMULPS Y1, Y2, Y2
	VMOVUPS (BX), Y3
	VCMPPS $0x1e, Y3, Y2, Y4
	LANEMASK(R13, X5, Y5, Y6)
	VANDPS Y5, Y4, Y4
	VBLENDVPS Y4, Y2, Y3, Y3
	VMOVUPS Y3, (BX)
	VSUBPS Y0, Y15, Y2
	VSUBPS 32(DX), Y2, Y2
	VMULPS Y1, Y2, Y2
	VMOVUPS 32(BX), Y3
	VCMPPS $0x1e, Y3, Y2, Y4
	SHRQ $8, R13
	LANEMASK(R13, X5, Y5, Y6)
	VANDPS Y5, Y4, Y4
	VBLENDVPS Y4, Y2, Y3, Y3
	VMOVUPS Y3, 32(BX)

ret:
	VZEROUPPER
	RET
