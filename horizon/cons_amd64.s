//go:build amd64

#include "textflag.h"
#include "go_asm.h"

// consAVX2 is consLanes16 in AVX2 (avx2_amd64.go): one step of the
// conservative block walk, the 16 lanes as two halves of 8 floats (the
// block's rows 0–1 and 2–3). Every float32 operation is consLanes16's (and
// so Model.chordLow's and segLow's), in its order and rounded on its own;
// comparisons are ordered (false on NaN) as Go's are. It reads the
// BlockWorker, its Model and the consJob through go_asm.h's offsets.
//
// Beyond consLanes16, which evaluates every patch for every lane, it
// skips a half's patch where no open lane's bound could fall (SKIPH):
// the same minimum, so the same bits.
//
// The step itself is consStep2, which consAVX2 calls once and consRun2
// once per step of a chunk (the segments then from the table).
//
// Registers: DI the BlockWorker, R8 the consJob, SI the segment (walked
// up to the segments' end, kept in the frame), R9 the lanes in the grid
// at some segment (in), R12 the open
// lanes (those the screen left), R13 the segment's hull (consHull), R14
// gw; in the evaluation R10/R11 the patch's elevations and their row
// stride in bytes, BX the g2 table's (row stride R14·4 bytes); Y14/Y15
// the lanes' lower bounds z.

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

// FW sets R to the bilinear patch at (U, V): ((z00 + bu·U) + bv·V) +
// (cuv·U)·V, with z00, bu, bv, cuv in Z00, BU, BV, CUV (segLow); T is
// scratch. F is FW on consAVX2's registers (z00, bu, bv, cuv in Y0, Y1,
// Y2, Y4), FZ on consAVX512's (Z0, Z1, Z2, Z4).
#define FW(Z00, BU, BV, CUV, U, V, R, T) \
	VMULPS U, BU, T; \
	VADDPS T, Z00, R; \
	VMULPS V, BV, T; \
	VADDPS T, R, R; \
	VMULPS U, CUV, T; \
	VMULPS V, T, T; \
	VADDPS T, R, R
#define F(U, V, R, T) FW(Y0, Y1, Y2, Y4, U, V, R, T)
#define FZ(U, V, R, T) FW(Z0, Z1, Z2, Z4, U, V, R, T)

// HALFV takes the vertex of the segment at SI where it lies inside and
// the quadratic curves up (lanes in Y6, c in Y5), lowering Y7, the
// segment's least value so far; z00, bu, bv, cuv in Y0, Y1, Y2, Y4, du
// and dv in Y8, Y9 (SEGH). It derives w = ua·dv + va·du as segLow does
// (Y10).
#define HALFV \
	VERTEXW(Y0, Y1, Y2, Y4, Y5, Y8, Y9, Y10, Y11, Y12, Y13); \
	VCMPPS $0x11, Y7, Y12, Y9; \
	VANDPS Y6, Y9, Y9; \
	VBROADCASTSS minusOne<>(SB), Y8; \
	VCMPPS $0x1e, Y8, Y11, Y8; \
	VANDPS Y8, Y9, Y9; \
	VXORPS Y8, Y8, Y8; \
	VCMPPS $0x11, Y8, Y11, Y8; \
	VANDPS Y8, Y9, Y9; \
	VBLENDVPS Y9, Y12, Y7, Y7

// VERTEXW sets R11 to sm = b / (c + c) and R12 to FW at the vertex (ua −
// sm·du, va − sm·dv) of the segment at SI, with w = ua·dv + va·du and b =
// bu·du + bv·dv + cuv·w as segLow derives them: the patch in Z00, BU,
// BV, CUV, c in R5, du and dv in R8, R9 (R9 is overwritten), R10 and R13
// scratch.
#define VERTEXW(Z00, BU, BV, CUV, R5, R8, R9, R10, R11, R12, R13) \
	VBROADCASTSS consSeg_ua(SI), R13; \
	VBROADCASTSS consSeg_va(SI), R10; \
	VMULPS R9, R13, R13; \
	VMULPS R8, R10, R10; \
	VADDPS R10, R13, R10; \
	VMULPS R8, BU, R11; \
	VMULPS R9, BV, R12; \
	VADDPS R12, R11, R11; \
	VMULPS R10, CUV, R12; \
	VADDPS R12, R11, R11; \
	VADDPS R5, R5, R12; \
	VDIVPS R12, R11, R11; \
	VMULPS R8, R11, R12; \
	VBROADCASTSS consSeg_ua(SI), R13; \
	VSUBPS R12, R13, R13; \
	VMULPS R9, R11, R12; \
	VBROADCASTSS consSeg_va(SI), R10; \
	VSUBPS R12, R10, R10; \
	FW(Z00, BU, BV, CUV, R13, R10, R12, R9)

// LOADH loads a half's patch (elevations from R10, row stride R11 bytes):
// z00, bu, bv, cuv in Y0, Y1, Y2, Y4 (segLow), and sets Y3, the least
// value over the patch's segments, to +Inf.
#define LOADH \
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
	VBROADCASTSS posInf<>(SB), Y3

// SEGH lowers Y3 to the least value of the loaded half's patch over the
// entry at SI (consSeg.pt): a segment's ends and its vertex where the
// quadratic curves up inside it (HALFV, with du = ub − ua and dv = vb − va
// in Y8, Y9, derived as segLow does), a point, or a rectangle's four
// corners (RECTH). VMINPS B, A, D sets D to A where A < B, else B: the
// comparison and select segLow's min makes, NaN and zeros alike.
#define SEGH(LOW, RECT) \
	CMPL consSeg_pt(SI), $const_ptRect; \
	JEQ RECT; \
	SEGW(Y0, Y1, Y2, Y4, Y5, Y6, Y7, Y8, Y9, LOW); \
	VCMPPS $0x1e, Y6, Y5, Y6; \
	VMOVMSKPS Y6, DX; \
	TESTL DX, DX; \
	JEQ LOW; \
	HALFV; \
	JMP LOW; \
RECT: \
	RECTH; \
LOW: \
	VMINPS Y3, Y7, Y3

// SEGW sets R7 to FW at the entry's first end (ua, va) and jumps to LOW
// for a point; for a segment it lowers R7 to FW at (ub, vb) and leaves du
// and dv in R8, R9, c = cuv·(du·dv) in R5 and zero in R6. The patch in
// Z00, BU, BV, CUV.
#define SEGW(Z00, BU, BV, CUV, R5, R6, R7, R8, R9, LOW) \
	VBROADCASTSS consSeg_ua(SI), R5; \
	VBROADCASTSS consSeg_va(SI), R6; \
	FW(Z00, BU, BV, CUV, R5, R6, R7, R8); \
	CMPL consSeg_pt(SI), $const_ptPoint; \
	JEQ LOW; \
	VBROADCASTSS consSeg_ub(SI), R5; \
	VBROADCASTSS consSeg_vb(SI), R6; \
	FW(Z00, BU, BV, CUV, R5, R6, R9, R8); \
	VMINPS R7, R9, R7; \
	VBROADCASTSS consSeg_ua(SI), R8; \
	VSUBPS R8, R5, R8; \
	VBROADCASTSS consSeg_va(SI), R9; \
	VSUBPS R9, R6, R9; \
	VMULPS R9, R8, R5; \
	VMULPS R5, CUV, R5; \
	VXORPS R6, R6, R6

// RECTW sets R7 to the least of FW at a rectangle's corners (ua, va),
// (ub, va), (ub, vb), (ua, vb), taken in that order as segLow does, each
// FW the same operations on the same operands: the products bu·u, bv·v
// and cuv·u and the sums z00 + bu·u are computed once for the corners
// that share them. Z00, BU, BV, CUV hold the patch (FW), R5…R13 are
// scratch. RECTH is RECTW on consAVX2's registers (Y7 set), RECTZ on
// consAVX512's (Z7 set).
#define RECTW(Z00, BU, BV, CUV, R5, R6, R7, R8, R9, R10, R11, R12, R13) \
	VBROADCASTSS consSeg_ua(SI), R5; \
	VBROADCASTSS consSeg_ub(SI), R6; \
	VMULPS R5, BU, R9; \
	VADDPS R9, Z00, R9; \
	VMULPS R6, BU, R10; \
	VADDPS R10, Z00, R10; \
	VMULPS R5, CUV, R5; \
	VMULPS R6, CUV, R6; \
	VBROADCASTSS consSeg_va(SI), R7; \
	VBROADCASTSS consSeg_vb(SI), R8; \
	VMULPS R7, BV, R11; \
	VMULPS R8, BV, R12; \
	VADDPS R11, R9, R13; \
	VADDPS R11, R10, R11; \
	VADDPS R12, R10, R10; \
	VADDPS R12, R9, R9; \
	VMULPS R7, R5, R12; \
	VADDPS R12, R13, R13; \
	VMULPS R7, R6, R12; \
	VADDPS R12, R11, R11; \
	VMULPS R8, R6, R12; \
	VADDPS R12, R10, R10; \
	VMULPS R8, R5, R12; \
	VADDPS R12, R9, R9; \
	VMINPS R13, R11, R13; \
	VMINPS R13, R10, R13; \
	VMINPS R13, R9, R7
#define RECTH RECTW(Y0, Y1, Y2, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13)
#define RECTZ RECTW(Z0, Z1, Z2, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13)

// HALFBG subtracts the slack g2·bulge (32(SP), SKIPH's) and consPad
// (64(SP)) from Y3, the half's patch's least value, and lowers Z, the
// half's running bound, to it in the lanes of hull bits R13 >> SH: by
// VMINPS where all 8 are in the grid (PART and DONE name the macro's
// labels). AX and DX are scratch.
#define HALFBG(Z, SH, PART, DONE) \
	VSUBPS 32(SP), Y3, Y3; \
	VSUBPS 64(SP), Y3, Y3; \
	MOVQ R13, DX; \
	SHRQ $SH, DX; \
	MOVQ DX, AX; \
	NOTQ AX; \
	TESTQ $0xff, AX; \
	JNE PART; \
	VMINPS Z, Y3, Z; \
	JMP DONE; \
PART: \
	LANEMASK(DX, X9, Y9, Y10); \
	VCMPPS $0x11, Z, Y3, Y8; \
	VANDPS Y9, Y8, Y8; \
	VBLENDVPS Y8, Y3, Z, Z; \
DONE:

// SKIPH jumps to SKIP when the patch cannot lower Z, the half's running
// bound, in any lane of DX (its open lanes in the grid, bits 0–7): where
// consBot − g2·bulge − consPad is at least Z (g2 from BX, row stride
// R14·4 bytes; consBot 16(SP) = 4·len(consG2) bytes after it; the
// bulge broadcast at 96(SP), consPad at 64(SP)). consBot is the patch's
// lowest corner less consPad, at most any value segLow computes in the
// patch (its rounding is within consPad), and every step after is
// HALFBG's, monotone: the patch's entries give no less. It keeps g2·bulge
// at 32(SP) for HALFBG. AX is scratch.
#define SKIPH(Z, SKIP) \
	VMOVUPS (BX), X8; \
	VINSERTF128 $1, (BX)(R14*4), Y8, Y8; \
	VMULPS 96(SP), Y8, Y8; \
	VMOVUPS Y8, 32(SP); \
	MOVQ 16(SP), AX; \
	VMOVUPS (BX)(AX*1), X9; \
	ADDQ BX, AX; \
	VINSERTF128 $1, (AX)(R14*4), Y9, Y9; \
	VSUBPS Y8, Y9, Y9; \
	VSUBPS 64(SP), Y9, Y9; \
	VCMPPS $0x11, Z, Y9, Y9; \
	VMOVMSKPS Y9, AX; \
	ANDQ DX, AX; \
	JEQ SKIP

// CONSONE is the body of consAVX2 and consAVX512 (their arguments bw,
// j): one step, its segments j.segs, through STEP (as CONSRUN's).
#define CONSONE(STEP) \
	MOVQ bw+0(FP), DI; \
	MOVQ j+8(FP), R8; \
	MOVQ consJob_segs(R8), SI; \
	MOVQ (consJob_segs+8)(R8), CX; \
	CALL STEP(SB); \
	RET

// PATCHAT sets DST to the address of patch (qx, qy) = (R10, R11)'s entry
// in the padded patch table FIELD (consTop, consG2: float32, gw = R14
// patches a row, index (qy + consBorder)·gw + qx + consBorder); IDX and T
// are scratch, and R10 may be T or DST.
#define PATCHAT(FIELD, IDX, T, DST) \
	LEAQ const_consBorder(R11), IDX; \
	IMULQ R14, IDX; \
	LEAQ const_consBorder(IDX)(R10*1), IDX; \
	MOVQ BlockWorker_m(DI), T; \
	MOVQ FIELD(T), T; \
	LEAQ (T)(IDX*4), DST

// ELEVAT sets R10 to the address of patch (qx, qy) = (R10, R11)'s first
// corner in the padded elevations (index (qy + blockPad)·padW + qx +
// blockPad) and R11 to their row stride, padW·4 bytes; AX is scratch.
#define ELEVAT \
	ADDQ $const_blockPad, R11; \
	IMULQ BlockWorker_padW(DI), R11; \
	LEAQ const_blockPad(R11)(R10*1), R10; \
	MOVQ BlockWorker_elev(DI), AX; \
	LEAQ (AX)(R10*4), R10; \
	MOVQ BlockWorker_padW(DI), R11; \
	SHLQ $2, R11

// SCREENED adds to the screened lanes BX those of AX within R13 (the
// lanes this patch covers) and jumps to DONE when no live lane
// (consJob.live) is left unscreened; DX is scratch.
#define SCREENED(DONE) \
	ANDQ R13, AX; \
	ORQ AX, BX; \
	MOVWQZX consJob_live(R8), AX; \
	MOVQ BX, DX; \
	NOTQ DX; \
	ANDQ DX, AX; \
	JEQ DONE

// CUR2 and CUR512 copy j.cur (R8) to the row at AX for CONSRUN.
#define CUR2 \
	VMOVUPS consJob_cur(R8), Y0; \
	VMOVUPS Y0, (AX); \
	VMOVUPS (consJob_cur+32)(R8), Y0; \
	VMOVUPS Y0, 32(AX)
#define CUR512 \
	VMOVUPS consJob_cur(R8), Z0; \
	VMOVUPS Z0, (AX)

// CONSRUN is the body of consRun2 and consRun512 (their arguments bw, j,
// o, n, row): steps o … o+n−1 of the segment table (consTab, consOff,
// consSc; o = k·consL + i) through STEP, which takes the BlockWorker in
// DI, the consJob in R8 and the step's segments in SI (CX of them), with
// j.cur written after each to the next row of 16 floats from row by COPY
// (CUR2 or CUR512: read as STEP wrote it, in halves or whole, since a
// load that straddles or splits a wider store waits for it on some CPUs —
// 4.6% of a 2 km region bake on an AMD EPYC). LOOP and DONE name the
// macro's labels.
#define CONSRUN(STEP, LOOP, DONE, COPY) \
LOOP: \
	MOVQ n+24(FP), AX; \
	TESTQ AX, AX; \
	JEQ DONE; \
	MOVQ bw+0(FP), DI; \
	MOVQ j+8(FP), R8; \
	MOVQ BlockWorker_m(DI), R9; \
	MOVQ o+16(FP), BX; \
	MOVQ Model_consOff(R9), AX; \
	MOVLQSX -4(AX)(BX*4), SI; \
	MOVLQSX (AX)(BX*4), CX; \
	SUBQ SI, CX; \
	IMULQ $consSeg__size, SI; \
	ADDQ Model_consTab(R9), SI; \
	MOVQ Model_consSc(R9), AX; \
	LEAQ (BX)(BX*2), DX; \
	MOVL (AX)(DX*4), R10; \
	MOVL R10, consJob_bulge(R8); \
	MOVL 4(AX)(DX*4), R10; \
	MOVL R10, consJob_drop(R8); \
	MOVL 8(AX)(DX*4), R10; \
	MOVL R10, consJob_inv(R8); \
	CALL STEP(SB); \
	MOVQ j+8(FP), R8; \
	MOVQ row+32(FP), AX; \
	COPY; \
	ADDQ $64, row+32(FP); \
	INCQ o+16(FP); \
	DECQ n+24(FP); \
	JMP LOOP; \
DONE: \
	VZEROUPPER; \
	RET

// STEPHEAD begins a step (consStep2, consStep512): it keeps the segments'
// start SI at START and their end (CX of them on) at END, fetches the
// next step's segments, which follow these in the table, while this step
// is evaluated (0.5 KiB of them, 1.5 KiB where the table streams from
// memory: Model.consFar), and sets R14 to gw; AX is the Model after it.
// NEAR names the macro's label.
#define STEPHEAD(START, END, NEAR) \
	MOVQ SI, START; \
	MOVQ CX, AX; \
	IMULQ $consSeg__size, AX; \
	ADDQ SI, AX; \
	MOVQ AX, END; \
	PREFETCHT0 0(AX); \
	PREFETCHT0 64(AX); \
	PREFETCHT0 128(AX); \
	PREFETCHT0 192(AX); \
	PREFETCHT0 256(AX); \
	PREFETCHT0 320(AX); \
	PREFETCHT0 384(AX); \
	PREFETCHT0 448(AX); \
	MOVQ BlockWorker_m(DI), R14; \
	CMPB Model_consFar(R14), $0; \
	JEQ NEAR; \
	PREFETCHT0 512(AX); \
	PREFETCHT0 576(AX); \
	PREFETCHT0 640(AX); \
	PREFETCHT0 704(AX); \
	PREFETCHT0 768(AX); \
	PREFETCHT0 832(AX); \
	PREFETCHT0 896(AX); \
	PREFETCHT0 960(AX); \
	PREFETCHT0 1024(AX); \
	PREFETCHT0 1088(AX); \
	PREFETCHT0 1152(AX); \
	PREFETCHT0 1216(AX); \
	PREFETCHT0 1280(AX); \
	PREFETCHT0 1344(AX); \
	PREFETCHT0 1408(AX); \
	PREFETCHT0 1472(AX); \
NEAR: \
	MOVQ R14, AX; \
	MOVQ Model_consGW(AX), R14

// HULLLIMITS stores HULLAT's limits, pw − 3 and ph − 3 patches (at least
// 0), at LX and LY, for the Model in AX; BX, CX and DX are scratch.
#define HULLLIMITS(LX, LY) \
	LEAQ Model_t(AX), DX; \
	MOVQ Terrain_Width(DX), CX; \
	SUBQ $4, CX; \
	XORQ BX, BX; \
	CMPQ CX, $0; \
	CMOVQLT BX, CX; \
	MOVQ CX, LX; \
	MOVQ Terrain_Height(DX), CX; \
	SUBQ $4, CX; \
	CMPQ CX, $0; \
	CMOVQLT BX, CX; \
	MOVQ CX, LY

// consHull sets R13 to the lanes whose patch (R10 + b mod 4, R11 + b div
// 4) lies in the grid's (W−1)×(H−1) patches (lanesIn), for the BlockWorker
// in DI; it clobbers AX, DX, R10 and R11.
TEXT consHull<>(SB), NOSPLIT|NOFRAME, $0-0
	MOVQ BlockWorker_m(DI), AX
	LEAQ Model_t(AX), AX
	MOVQ Terrain_Width(AX), DX
	DECQ DX
	MOVQ Terrain_Height(AX), AX
	DECQ AX
	TESTQ R10, R10
	JLT slow
	TESTQ R11, R11
	JLT slow
	LEAQ const_BlockSide(R10), R13
	CMPQ R13, DX
	JGT slow
	LEAQ const_BlockSide(R11), R13
	CMPQ R13, AX
	JGT slow
	MOVQ $0xffff, R13
	RET

slow:
	// Columns 0 ≤ qx+x < pw, then rows 0 ≤ qy+y < ph (unsigned compares).
	XORQ R13, R13
	CMPQ R10, DX
	JCC c1
	ORQ $1, R13

c1:
	INCQ R10
	CMPQ R10, DX
	JCC c2
	ORQ $2, R13

c2:
	INCQ R10
	CMPQ R10, DX
	JCC c3
	ORQ $4, R13

c3:
	INCQ R10
	CMPQ R10, DX
	JCC c4
	ORQ $8, R13

c4:
	XORQ DX, DX
	CMPQ R11, AX
	JCC r1
	ORQ R13, DX

r1:
	SHLQ $4, R13
	INCQ R11
	CMPQ R11, AX
	JCC r2
	ORQ R13, DX

r2:
	SHLQ $4, R13
	INCQ R11
	CMPQ R11, AX
	JCC r3
	ORQ R13, DX

r3:
	SHLQ $4, R13
	INCQ R11
	CMPQ R11, AX
	JCC r4
	ORQ R13, DX

r4:
	MOVQ DX, R13
	RET

// QXY sets R10, R11 to the segment's patch (col + px, row + py).
#define QXY \
	MOVLQSX consSeg_px(SI), R10; \
	ADDQ consJob_col(R8), R10; \
	MOVLQSX consSeg_py(SI), R11; \
	ADDQ consJob_row(R8), R11

// HULL sets R13 to the lanes whose patch (R10 + b mod 4, R11 + b div 4)
// lies in the grid, as consHull does, without the call where all 16 do:
// 0 ≤ R10 < pw − 3 and 0 ≤ R11 < ph − 3 (unsigned compares with the
// limits at 128(SP) and 136(SP), 0 where the grid is too small), else
// through consHull, and R10, R11 set again (QXY). SLOW and DONE name the
// macro's labels. HULLAT takes the limits' places.
#define HULL(SLOW, DONE) HULLAT(128(SP), 136(SP), SLOW, DONE)
#define HULLAT(LX, LY, SLOW, DONE) \
	CMPQ R10, LX; \
	JCC SLOW; \
	CMPQ R11, LY; \
	JCC SLOW; \
	MOVQ $0xffff, R13; \
	JMP DONE; \
SLOW: \
	CALL consHull<>(SB); \
	QXY; \
DONE:

// func consAVX2(bw *BlockWorker, j *consJob)
TEXT ·consAVX2(SB), NOSPLIT, $0-16
	CONSONE(consStep2<>)

// func consRun2(bw *BlockWorker, j *consJob, o, n int, row *float32)
TEXT ·consRun2(SB), NOSPLIT, $0-40
	CONSRUN(consStep2<>, run2, run2Done, CUR2)

// consStep2 is one step of consAVX2: the BlockWorker in DI, the consJob in
// R8 (its scalars and cur; not its segments), the step's SI segments, CX
// of them.
TEXT consStep2<>(SB), NOSPLIT, $160-0
	// The next step's segments follow these in the table: fetch them
	// while this step is evaluated. The segments begin at 152(SP), end at
	// 144(SP).
	STEPHEAD(152(SP), 144(SP), near2)
	// HULL's limits: pw − 3 and ph − 3 patches, at least 0. The frame:
	// 0(SP) and 8(SP) a patch's segments (eval), 16(SP) consBot's
	// offset, 32(SP), 64(SP) and 96(SP) vectors (SKIPH, HALFBG),
	// 128(SP) and 136(SP) these, 144(SP) and 152(SP) the segments.
	HULLLIMITS(128(SP), 136(SP))
	LEAQ BlockWorker_eye(DI), AX
	VMOVUPS (AX), Y4
	VMOVUPS 32(AX), Y5
	LEAQ consJob_cur(R8), AX
	VMOVUPS (AX), Y6
	VMOVUPS 32(AX), Y7
	VBROADCASTSS consJob_drop(R8), Y8
	VBROADCASTSS consJob_inv(R8), Y9

	// The screen: lanes for which some patch's highest corner gives a
	// slope of at most cur cannot rise.
	XORQ BX, BX // pass
	MOVQ 152(SP), SI

screen:
	CMPQ SI, 144(SP)
	JGE screened
	QXY
	HULL(hullScreen, hullScreenDone)
	TESTQ R13, R13
	JEQ screenNext
	PATCHAT(Model_consTop, AX, R10, R10)
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
	SCREENED(ret)

screenNext:
	// The next patch: grp segments on.
	MOVLQSX consSeg_grp(SI), AX
	IMULQ $consSeg__size, AX
	ADDQ AX, SI
	JMP screen

screened:
	MOVWQZX consJob_live(R8), R12
	NOTQ BX
	ANDQ BX, R12 // need
	// Kept for the evaluation's patches: consBot's distance from consG2
	// in bytes at 16(SP); consPad and the bulge broadcast at 64(SP) and
	// 96(SP); SKIPH's g2·bulge goes to 32(SP).
	MOVQ BlockWorker_m(DI), AX
	MOVQ (Model_consG2+8)(AX), DX
	SHLQ $2, DX
	MOVQ DX, 16(SP)
	VBROADCASTSS Model_consPad(AX), Y0
	VMOVUPS Y0, 64(SP)
	VBROADCASTSS consJob_bulge(R8), Y0
	VMOVUPS Y0, 96(SP)
	VBROADCASTSS posInf<>(SB), Y14
	VMOVAPS Y14, Y15
	XORQ R9, R9
	MOVQ 152(SP), SI

eval:
	// A patch at a time: its grp segments from SI, their end kept at
	// 0(SP), their start at 8(SP).
	CMPQ SI, 144(SP)
	JGE evaluated
	MOVLQSX consSeg_grp(SI), DX
	IMULQ $consSeg__size, DX
	ADDQ SI, DX
	MOVQ DX, 0(SP)
	MOVQ SI, 8(SP)
	QXY
	HULL(hullEval, hullEvalDone)
	TESTQ R13, R13
	JEQ evalNext
	ORQ R13, R9
	// The patch (qx, qy): its g2 (and consBot, 4·len(consG2) bytes on)
	// at (qy + consBorder)·gw + qx + consBorder, its elevations at (qy +
	// blockPad)·ew + qx + blockPad.
	PATCHAT(Model_consG2, BX, AX, BX)
	ELEVAT

	MOVQ R13, DX
	ANDQ R12, DX
	ANDQ $0xff, DX
	JEQ half1 // no open lane of half 0 here
	SKIPH(Y14, half1)
	LOADH

seg0:
	SEGH(low0, rect0)
	ADDQ $consSeg__size, SI
	CMPQ SI, 0(SP)
	JLT seg0
	HALFBG(Y14, 0, part0, done0)

half1:
	LEAQ (R10)(R11*2), R10
	LEAQ (BX)(R14*8), BX
	MOVQ 8(SP), SI
	MOVQ R13, DX
	SHRQ $8, DX
	MOVQ R12, AX
	SHRQ $8, AX
	ANDQ AX, DX
	ANDQ $0xff, DX
	JEQ evalNext // no open lane of half 1 here
	SKIPH(Y15, evalNext)
	LOADH

seg1:
	SEGH(low1, rect1)
	ADDQ $consSeg__size, SI
	CMPQ SI, 0(SP)
	JLT seg1
	HALFBG(Y15, 8, part1, done1)

evalNext:
	MOVQ 0(SP), SI
	JMP eval

evaluated:
	// cur = sl where sl > cur, for the lanes open and in the grid (a
	// lane the screen closed has sl ≤ cur, and its halves may have been
	// skipped). The open lanes are not narrowed patch by patch as their
	// bounds fall: the test cost more than the patches it skipped
	// (region bake of the Total_Viewshed crop's 160² corner 5.0 → 4.7 s).
	MOVQ R12, R13
	ANDQ R9, R13
	LEAQ BlockWorker_eye(DI), DX
	LEAQ consJob_cur(R8), BX
	VBROADCASTSS consJob_drop(R8), Y0
	VBROADCASTSS consJob_inv(R8), Y1
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

// consAVX512 is consAVX2 with the 16 lanes in one 512-bit register (the
// block's rows 0–3, four lanes each) and the lane masks in mask
// registers, on CPUs with AVX-512F: the same operations on the same
// operands in the same order, so the same bits (TestConsAVX2Twin runs
// both). Registers as consAVX2's, with Z14 the lanes' lower bounds z;
// Z16 the bulge, Z17 consPad, Z18 a patch's slack g2·bulge, Z19 the eyes,
// Z20 cur, Z21 drop, Z22 inv, Z23 −1 (broadcast where scalar), Z24 +Inf;
// K1 a patch's lanes in the grid, K2 its open ones, K3 a segment's
// vertex lanes. CX is a patch's segments' end in the evaluation.

// ROWS4 loads 4 rows of 4 floats, the first at A + OFF, the rows R bytes
// apart, into Z (lanes 4r…4r+3 from row r); T is scratch.
#define ROWS4(A, R, OFF, X, Z, T) \
	VMOVUPS OFF(A), X; \
	VINSERTF32X4 $1, OFF(A)(R*1), Z, Z; \
	VINSERTF32X4 $2, OFF(A)(R*2), Z, Z; \
	LEAQ (A)(R*2), T; \
	VINSERTF32X4 $3, OFF(T)(R*1), Z, Z

// HULLZ is HULL with the limits at 16(SP) and 24(SP).
#define HULLZ(SLOW, DONE) HULLAT(16(SP), 24(SP), SLOW, DONE)

// LOADZ loads the patch's 16 lanes (elevations from R10, row stride R11
// bytes): z00, bu, bv, cuv in Z0, Z1, Z2, Z4, and sets Z3 to +Inf.
#define LOADZ \
	ROWS4(R10, R11, 0, X0, Z0, AX); \
	ROWS4(R10, R11, 4, X1, Z1, AX); \
	LEAQ (R10)(R11*1), DX; \
	ROWS4(DX, R11, 0, X2, Z2, AX); \
	ROWS4(DX, R11, 4, X3, Z3, AX); \
	VSUBPS Z1, Z0, Z4; \
	VSUBPS Z2, Z4, Z4; \
	VADDPS Z3, Z4, Z4; \
	VSUBPS Z0, Z1, Z1; \
	VSUBPS Z0, Z2, Z2; \
	VMOVAPS Z24, Z3

// VERTZ is HALFV on Z registers: the vertex where it lies inside and the
// quadratic curves up (lanes in K3, c in Z5) lowers Z7; du, dv in Z8, Z9.
#define VERTZ \
	VERTEXW(Z0, Z1, Z2, Z4, Z5, Z8, Z9, Z10, Z11, Z12, Z13); \
	VCMPPS $0x1e, Z23, Z11, K3, K3; \
	VXORPS Z8, Z8, Z8; \
	VCMPPS $0x11, Z8, Z11, K3, K3; \
	VCMPPS $0x11, Z7, Z12, K3, K3; \
	VMOVAPS Z12, K3, Z7

// SEGZ is SEGH on Z registers, lowering Z3.
#define SEGZ(LOW, RECT) \
	CMPL consSeg_pt(SI), $const_ptRect; \
	JEQ RECT; \
	SEGW(Z0, Z1, Z2, Z4, Z5, Z6, Z7, Z8, Z9, LOW); \
	VCMPPS $0x1e, Z6, Z5, K3; \
	KORTESTW K3, K3; \
	JEQ LOW; \
	VERTZ; \
	JMP LOW; \
RECT: \
	RECTZ; \
LOW: \
	VMINPS Z3, Z7, Z3

// func consAVX512(bw *BlockWorker, j *consJob)
TEXT ·consAVX512(SB), NOSPLIT, $0-16
	CONSONE(consStep512<>)

// func consRun512(bw *BlockWorker, j *consJob, o, n int, row *float32)
TEXT ·consRun512(SB), NOSPLIT, $0-40
	CONSRUN(consStep512<>, run512, run512Done, CUR512)

// consStep512 is one step: the BlockWorker in DI, the consJob in R8 (its
// scalars and cur; not its segments), the step's SI segments, CX of them.
TEXT consStep512<>(SB), NOSPLIT, $48-0
	// The next step's segments follow these in the table: fetch them
	// while this step is evaluated. The segments end at 0(SP), begin at
	// 40(SP).
	STEPHEAD(40(SP), 0(SP), near512)
	// HULLZ's limits at 16(SP) and 24(SP); consBot's offset goes to
	// 32(SP).
	HULLLIMITS(16(SP), 24(SP))
	VMOVUPS BlockWorker_eye(DI), Z19
	VMOVUPS consJob_cur(R8), Z20
	VBROADCASTSS consJob_drop(R8), Z21
	VBROADCASTSS consJob_inv(R8), Z22
	VBROADCASTSS minusOne<>(SB), Z23
	VBROADCASTSS posInf<>(SB), Z24

	// The screen, as consAVX2's.
	XORQ BX, BX // pass
	MOVQ 40(SP), SI

zscreen:
	CMPQ SI, 0(SP)
	JGE zscreened
	QXY
	HULLZ(zhullScreen, zhullScreenDone)
	TESTQ R13, R13
	JEQ zscreenNext
	PATCHAT(Model_consTop, AX, R10, R10)
	MOVQ R14, R11
	SHLQ $2, R11
	ROWS4(R10, R11, 0, X0, Z0, AX)
	VSUBPS Z21, Z0, Z0
	VSUBPS Z19, Z0, Z0
	VMULPS Z22, Z0, Z0
	VCMPPS $0x12, Z20, Z0, K1
	KMOVW K1, AX
	SCREENED(zret)

zscreenNext:
	MOVLQSX consSeg_grp(SI), AX
	IMULQ $consSeg__size, AX
	ADDQ AX, SI
	JMP zscreen

zscreened:
	MOVWQZX consJob_live(R8), R12
	NOTQ BX
	ANDQ BX, R12 // need
	MOVQ BlockWorker_m(DI), AX
	MOVQ (Model_consG2+8)(AX), DX
	SHLQ $2, DX
	MOVQ DX, 32(SP)
	VBROADCASTSS Model_consPad(AX), Z17
	VBROADCASTSS consJob_bulge(R8), Z16
	VMOVAPS Z24, Z14
	XORQ R9, R9
	MOVQ 40(SP), SI

zeval:
	// A patch at a time: its grp segments from SI, their end in CX.
	CMPQ SI, 0(SP)
	JGE zevaluated
	MOVLQSX consSeg_grp(SI), CX
	IMULQ $consSeg__size, CX
	ADDQ SI, CX
	QXY
	HULLZ(zhullEval, zhullEvalDone)
	TESTQ R13, R13
	JEQ zevalNext
	ORQ R13, R9
	KMOVW R13, K1 // the lanes in the grid
	ANDQ R12, R13
	JEQ zevalNext // no open lane here
	KMOVW R13, K2
	PATCHAT(Model_consG2, BX, AX, BX)

	// SKIPH: the patch cannot lower z in an open lane where consBot −
	// g2·bulge − consPad is at least z.
	MOVQ R14, R13
	SHLQ $2, R13
	ROWS4(BX, R13, 0, X18, Z18, AX)
	VMULPS Z16, Z18, Z18
	MOVQ 32(SP), DX
	ADDQ BX, DX
	ROWS4(DX, R13, 0, X9, Z9, AX)
	VSUBPS Z18, Z9, Z9
	VSUBPS Z17, Z9, Z9
	VCMPPS $0x11, Z14, Z9, K2, K2
	KORTESTW K2, K2
	JEQ zevalNext

	ELEVAT
	LOADZ

zseg:
	SEGZ(zlow, zrect)
	ADDQ $consSeg__size, SI
	CMPQ SI, CX
	JLT zseg
	// HALFBG: less the slack and consPad, into z in the lanes in the
	// grid.
	VSUBPS Z18, Z3, Z3
	VSUBPS Z17, Z3, Z3
	VMINPS Z14, Z3, K1, Z14

zevalNext:
	MOVQ CX, SI
	JMP zeval

zevaluated:
	// cur = sl where sl > cur, for the lanes open and in the grid.
	ANDQ R9, R12
	KMOVW R12, K1
	VSUBPS Z21, Z14, Z2
	VSUBPS Z19, Z2, Z2
	VMULPS Z22, Z2, Z2
	VCMPPS $0x1e, Z20, Z2, K1, K1
	VMOVAPS Z2, K1, Z20
	VMOVUPS Z20, consJob_cur(R8)

zret:
	VZEROUPPER
	RET
