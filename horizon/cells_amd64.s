//go:build amd64

#include "textflag.h"
#include "go_asm.h"

// cellAVX2 is cellLanes in AVX2 (avx2_amd64.go): the per-cell test of the
// cells j.cells of a cellJob for the block's 16 lanes, as two halves of 8
// floats (lanes 0–7, 8–15), with permutes or gathers for the brackets'
// sector tables and gathers for their profile values (the second
// bracket's only where it is another sector: k1 > 0, the sector model).
// Every float32 operation is cellLanes's, in its order and rounded on
// its own; comparisons are ordered (false on NaN)
// as Go's are; min(t0, t1) as VMINPS, which differs from Go's min only
// between ±0 (never NaN in profiles), where the comparison after it does
// not. Conversions truncate as Go's int(float32) does in range (sector
// indices below 2S, steps below 2^31).
//
// Registers: DI the BlockWorker, R8 the cellJob, R9 its Model, R10
// secInvX, R11 the lanes' n, R12 their start, R13 the profiles, R14 the
// offset table's row stride in bytes, CX the cell, BX its visible bits;
// Y13 the half's lane indices, Y14 the window's column permutation; Y11
// the lanes' sector offsets from kmin (BRACKET).

// The permutations of a window's row pair: as loaded, or each row
// reversed (flip&1).
DATA perm<>+0(SB)/8, $0x0000000100000000
DATA perm<>+8(SB)/8, $0x0000000300000002
DATA perm<>+16(SB)/8, $0x0000000500000004
DATA perm<>+24(SB)/8, $0x0000000700000006
DATA perm<>+32(SB)/8, $0x0000000200000003
DATA perm<>+40(SB)/8, $0x0000000000000001
DATA perm<>+48(SB)/8, $0x0000000600000007
DATA perm<>+56(SB)/8, $0x0000000400000005
GLOBL perm<>(SB), RODATA|NOPTR, $64

// Lane indices 0…15.
DATA laneIdx<>+0(SB)/8, $0x0000000100000000
DATA laneIdx<>+8(SB)/8, $0x0000000300000002
DATA laneIdx<>+16(SB)/8, $0x0000000500000004
DATA laneIdx<>+24(SB)/8, $0x0000000700000006
DATA laneIdx<>+32(SB)/8, $0x0000000900000008
DATA laneIdx<>+40(SB)/8, $0x0000000b0000000a
DATA laneIdx<>+48(SB)/8, $0x0000000d0000000c
DATA laneIdx<>+56(SB)/8, $0x0000000f0000000e
GLOBL laneIdx<>(SB), RODATA|NOPTR, $64

// 7, eight of them: the sector tables' window (BRACKET).
DATA seven<>+0(SB)/8, $0x0000000700000007
DATA seven<>+8(SB)/8, $0x0000000700000007
DATA seven<>+16(SB)/8, $0x0000000700000007
DATA seven<>+24(SB)/8, $0x0000000700000007
GLOBL seven<>(SB), RODATA|NOPTR, $32

// ½ (marginSteps), eight of them.
DATA half<>+0(SB)/8, $0x3f0000003f000000
DATA half<>+8(SB)/8, $0x3f0000003f000000
DATA half<>+16(SB)/8, $0x3f0000003f000000
DATA half<>+24(SB)/8, $0x3f0000003f000000
GLOBL half<>(SB), RODATA|NOPTR, $32

// UPLUSS sets U, the lanes' offU entries q, to u + S = base + q·sign + S
// (the cell kernels' arguments S, base and sign: the quadrant's azimuth in
// sectors, cellLanesAVX2), in that order of operations; T is scratch.
#define UPLUSS(U, T) \
	VBROADCASTSS sign+24(FP), T; \
	VMULPS T, U, U; \
	VBROADCASTSS base+20(FP), T; \
	VADDPS U, T, U; \
	VBROADCASTSS S+16(FP), T; \
	VADDPS T, U, U

// BRACKETREGS loads, for the BlockWorker in DI, the registers the
// brackets read (BRACKET, BRACKETZ): R9 its Model, R10 secInvX, R11 the
// lanes' n, R12 their start, R13 the profiles.
#define BRACKETREGS \
	MOVQ BlockWorker_m(DI), R9; \
	MOVQ Model_secInvX(R9), R10; \
	MOVQ BlockWorker_n(DI), R11; \
	MOVQ BlockWorker_start(DI), R12; \
	MOVQ BlockWorker_prof(DI), R13

// ROWSTRIDE sets R14 to the offset table's row stride in bytes, (rc+1)·4,
// for the Model in R9.
#define ROWSTRIDE \
	MOVQ Model_rc(R9), R14; \
	INCQ R14; \
	SHLQ $2, R14

// LANES16 sets BRACKETZ's constants: Z13 the lane indices 0…15, Z15
// fifteens; AX is scratch.
#define LANES16 \
	VMOVDQU32 laneIdx<>(SB), Z13; \
	MOVL $15, AX; \
	VPBROADCASTD AX, Z15

// WIN loads the half's window of the table at SI (rows at byte offsets
// AX, DX) into Y, in lane order (Y14).
#define WIN(Y, X) \
	VMOVUPS (SI)(AX*1), X; \
	VINSERTF128 $1, (SI)(DX*1), Y, Y; \
	VPERMPS Y, Y14, Y

// BRACKET sets T to the lanes' running maxima in sectors K at the slot of
// their distance d (Y0): max(min(int(d·secInvX[k] − ½), n[k]), 0) steps
// from start[k] (BlockWorker.slot). The sector tables are read without
// gathers where the half's sectors lie within 8 of their least, kmin (9
// halves in 10 on the Total_Viewshed crop at S = 360): the 8 entries from
// kmin, permuted (every table holds 2S+32 entries, k ≤ 2S); else gathered.
// The profile values stay gathered: 8 lanes read 6 to 8 different steps.
// SLOW and DONE name the macro's labels, distinct at each use.
#define BRACKET(K, T, SLOW, DONE) \
	VPSHUFD $0x4e, K, Y6; \
	VPMINSD K, Y6, Y6; \
	VPSHUFD $0xb1, Y6, Y7; \
	VPMINSD Y7, Y6, Y6; \
	VPERM2I128 $0x01, Y6, Y6, Y7; \
	VPMINSD Y7, Y6, Y6; \
	VPSUBD Y6, K, Y11; \
	VPCMPGTD seven<>(SB), Y11, Y8; \
	VPTEST Y8, Y8; \
	JNE SLOW; \
	VMOVD X6, AX; \
	VPERMPS (R10)(AX*4), Y11, Y4; \
	VPERMD (R11)(AX*4), Y11, Y6; \
	VPERMD (R12)(AX*4), Y11, Y7; \
	JMP DONE; \
SLOW: \
	VPCMPEQD Y8, Y8, Y8; \
	VGATHERDPS Y8, (R10)(K*4), Y4; \
	VPCMPEQD Y8, Y8, Y8; \
	VPGATHERDD Y8, (R11)(K*4), Y6; \
	VPCMPEQD Y8, Y8, Y8; \
	VPGATHERDD Y8, (R12)(K*4), Y7; \
DONE: \
	VMULPS Y4, Y0, Y4; \
	VSUBPS half<>(SB), Y4, Y4; \
	VCVTTPS2DQ Y4, Y5; \
	VPMINSD Y6, Y5, Y5; \
	VPXOR Y6, Y6, Y6; \
	VPMAXSD Y6, Y5, Y5; \
	VPADDD Y5, Y7, Y7; \
	VPSLLD $4, Y7, Y7; \
	VPADDD Y13, Y7, Y7; \
	VPCMPEQD Y8, Y8, Y8; \
	VGATHERDPS Y8, (R13)(Y7*4), T

// func cellAVX2(bw *BlockWorker, j *cellJob, S, base, sign float32)
TEXT ·cellAVX2(SB), NOSPLIT, $0-28
	MOVQ bw+0(FP), DI
	MOVQ j+8(FP), R8
	BRACKETREGS
	ROWSTRIDE
	MOVBQZX cellJob_flip(R8), AX
	ANDQ $1, AX
	SHLQ $5, AX
	LEAQ perm<>(SB), DX
	VMOVDQU (DX)(AX*1), Y14
	XORQ CX, CX

cell:
	MOVBQZX cellJob_cells(R8), AX
	BTQ CX, AX
	JCC next
	XORQ BX, BX

	// Half 0: lanes 0–7, the window's rows 0 and 1 (3−r when
	// flip&2), as byte offsets AX, DX.
	MOVBQZX cellJob_flip(R8), AX
	SHRQ $1, AX
	ANDQ $1, AX
	IMUL3Q $3, AX, AX
	MOVQ AX, DX
	XORQ $0, AX
	XORQ $1, DX
	IMULQ R14, AX
	IMULQ R14, DX
	MOVQ cellJob_win(R8)(CX*8), SI
	SHLQ $2, SI
	ADDQ SI, AX
	ADDQ SI, DX
	MOVQ Model_offU(R9), SI
	WIN(Y3, X3)
	MOVQ Model_offD(R9), SI
	WIN(Y0, X0)
	MOVQ Model_offInv(R9), SI
	WIN(Y1, X1)
	VMOVDQU laneIdx<>+0(SB), Y13

	// zz = z[k] + tau (− drop); lhs = zz·inv
	VBROADCASTSS cellJob_z(R8)(CX*4), Y4
	LEAQ BlockWorker_tau(DI), SI
	VADDPS 0(SI), Y4, Y4
	MOVQ Model_offDrp(R9), SI
	TESTQ SI, SI
	JEQ nodrop0
	WIN(Y5, X5)
	VSUBPS Y5, Y4, Y4

nodrop0:
	VMULPS Y1, Y4, Y1

	// u = base + q·sign, k0 = int(u + S − ½)
	UPLUSS(Y3, Y5)
	VSUBPS half<>(SB), Y3, Y3
	VCVTTPS2DQ Y3, Y2
	BRACKET(Y2, Y9, slow0a, done0a)
	MOVQ Model_k1(R9), SI
	TESTQ SI, SI
	JEQ onebracket0 // k1 = 0: both brackets are sector k0
	VMOVD SI, X6
	VPBROADCASTD X6, Y6
	VPADDD Y6, Y2, Y3
	BRACKET(Y3, Y10, slow0b, done0b)
	VMINPS Y10, Y9, Y9

onebracket0:
	// visible: lhs ≥ min(t0, t1) and d ≤ lim
	VCMPPS $0x1d, Y9, Y1, Y9
	VBROADCASTSS Model_lim(R9), Y10
	VCMPPS $0x12, Y10, Y0, Y10
	VANDPS Y10, Y9, Y9
	VMOVMSKPS Y9, DX
	SHLQ $0, DX
	ORQ DX, BX

	// Half 1: lanes 8–15, the window's rows 2 and 3 (3−r when
	// flip&2), as byte offsets AX, DX.
	MOVBQZX cellJob_flip(R8), AX
	SHRQ $1, AX
	ANDQ $1, AX
	IMUL3Q $3, AX, AX
	MOVQ AX, DX
	XORQ $2, AX
	XORQ $3, DX
	IMULQ R14, AX
	IMULQ R14, DX
	MOVQ cellJob_win(R8)(CX*8), SI
	SHLQ $2, SI
	ADDQ SI, AX
	ADDQ SI, DX
	MOVQ Model_offU(R9), SI
	WIN(Y3, X3)
	MOVQ Model_offD(R9), SI
	WIN(Y0, X0)
	MOVQ Model_offInv(R9), SI
	WIN(Y1, X1)
	VMOVDQU laneIdx<>+32(SB), Y13

	// zz = z[k] + tau (− drop); lhs = zz·inv
	VBROADCASTSS cellJob_z(R8)(CX*4), Y4
	LEAQ BlockWorker_tau(DI), SI
	VADDPS 32(SI), Y4, Y4
	MOVQ Model_offDrp(R9), SI
	TESTQ SI, SI
	JEQ nodrop1
	WIN(Y5, X5)
	VSUBPS Y5, Y4, Y4

nodrop1:
	VMULPS Y1, Y4, Y1

	// u = base + q·sign, k0 = int(u + S − ½)
	UPLUSS(Y3, Y5)
	VSUBPS half<>(SB), Y3, Y3
	VCVTTPS2DQ Y3, Y2
	BRACKET(Y2, Y9, slow1a, done1a)
	MOVQ Model_k1(R9), SI
	TESTQ SI, SI
	JEQ onebracket1 // k1 = 0: both brackets are sector k0
	VMOVD SI, X6
	VPBROADCASTD X6, Y6
	VPADDD Y6, Y2, Y3
	BRACKET(Y3, Y10, slow1b, done1b)
	VMINPS Y10, Y9, Y9

onebracket1:
	// visible: lhs ≥ min(t0, t1) and d ≤ lim
	VCMPPS $0x1d, Y9, Y1, Y9
	VBROADCASTSS Model_lim(R9), Y10
	VCMPPS $0x12, Y10, Y0, Y10
	VANDPS Y10, Y9, Y9
	VMOVMSKPS Y9, DX
	SHLQ $8, DX
	ORQ DX, BX

	MOVW BX, cellJob_vis(R8)(CX*2)

next:
	INCQ CX
	CMPQ CX, $4
	JLT cell
	VZEROUPPER
	RET

// cellAVX512 is cellAVX2 with the 16 lanes in one 512-bit register, on
// CPUs with AVX-512F: the same operations in the same order, so the same
// bits (TestBlockAVX2Twins runs both). The sector tables are read by
// permutes where the lanes' sectors lie within 16 of their least (the
// tables hold 2S+32 entries), else gathered, as are the profile values.
// Registers as cellAVX2's, but BX scratch (each cell's visible lanes
// are stored at once from a mask register); Z13 the lane indices, Z14 the
// column permutation, Z15 fifteens.

// BRACKETZ is BRACKET on Z registers: T the lanes' running maxima in
// sectors K at the slot of their distance d (Z0). SLOW and DONE name the
// macro's labels.
#define BRACKETZ(K, T, SLOW, DONE) \
	VSHUFI32X4 $0x4e, K, K, Z6; \
	VPMINSD K, Z6, Z6; \
	VSHUFI32X4 $0xb1, Z6, Z6, Z7; \
	VPMINSD Z7, Z6, Z6; \
	VPSHUFD $0x4e, Z6, Z7; \
	VPMINSD Z7, Z6, Z6; \
	VPSHUFD $0xb1, Z6, Z7; \
	VPMINSD Z7, Z6, Z6; \
	VPSUBD Z6, K, Z11; \
	VPCMPD $6, Z15, Z11, K2; \
	KORTESTW K2, K2; \
	JNE SLOW; \
	VMOVD X6, AX; \
	VPERMPS (R10)(AX*4), Z11, Z4; \
	VPERMD (R11)(AX*4), Z11, Z6; \
	VPERMD (R12)(AX*4), Z11, Z7; \
	JMP DONE; \
SLOW: \
	KXNORW K1, K1, K1; \
	VGATHERDPS (R10)(K*4), K1, Z4; \
	KXNORW K1, K1, K1; \
	VPGATHERDD (R11)(K*4), K1, Z6; \
	KXNORW K1, K1, K1; \
	VPGATHERDD (R12)(K*4), K1, Z7; \
DONE: \
	VMULPS Z4, Z0, Z4; \
	VBROADCASTSS half<>(SB), Z5; \
	VSUBPS Z5, Z4, Z4; \
	VCVTTPS2DQ Z4, Z5; \
	VPMINSD Z6, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPMAXSD Z6, Z5, Z5; \
	VPADDD Z5, Z7, Z7; \
	VPSLLD $4, Z7, Z7; \
	VPADDD Z13, Z7, Z7; \
	KXNORW K1, K1, K1; \
	VGATHERDPS (R13)(Z7*4), K1, T

// BRACKETS2Z sets Z9 to the lanes' least running maximum over both
// brackets of azimuth Z3 + ½ (u + S in sectors), k0 = int(Z3 − ½) and
// k0 + k1, at distance Z0: one bracket where k1 = 0 (both are sector
// k0). The other arguments name the macro's labels.
#define BRACKETS2Z(S0, D0, S1, D1, ONE) \
	VBROADCASTSS half<>(SB), Z5; \
	VSUBPS Z5, Z3, Z3; \
	VCVTTPS2DQ Z3, Z2; \
	BRACKETZ(Z2, Z9, S0, D0); \
	MOVQ Model_k1(R9), SI; \
	TESTQ SI, SI; \
	JEQ ONE; \
	VPBROADCASTD SI, Z6; \
	VPADDD Z6, Z2, Z3; \
	BRACKETZ(Z3, Z10, S1, D1); \
	VMINPS Z10, Z9, Z9; \
ONE:

// WINZ loads the window of the table at SI into Z in lane order: row r
// of lanes 4r…4r+3 from byte offset AX + r·DX (DX negative where
// flip&2), its four permuted by Z14 (reversed where flip&1); BX is
// scratch.
#define WINZ(X, Z) \
	VMOVUPS (SI)(AX*1), X; \
	LEAQ (SI)(AX*1), BX; \
	VINSERTF32X4 $1, (BX)(DX*1), Z, Z; \
	VINSERTF32X4 $2, (BX)(DX*2), Z, Z; \
	LEAQ (BX)(DX*2), BX; \
	VINSERTF32X4 $3, (BX)(DX*1), Z, Z; \
	VPERMPS Z, Z14, Z

// The lanes' column permutations: as loaded, or each row of four
// reversed (flip&1).
DATA perm16<>+0(SB)/8, $0x0000000100000000
DATA perm16<>+8(SB)/8, $0x0000000300000002
DATA perm16<>+16(SB)/8, $0x0000000500000004
DATA perm16<>+24(SB)/8, $0x0000000700000006
DATA perm16<>+32(SB)/8, $0x0000000900000008
DATA perm16<>+40(SB)/8, $0x0000000b0000000a
DATA perm16<>+48(SB)/8, $0x0000000d0000000c
DATA perm16<>+56(SB)/8, $0x0000000f0000000e
DATA perm16<>+64(SB)/8, $0x0000000200000003
DATA perm16<>+72(SB)/8, $0x0000000000000001
DATA perm16<>+80(SB)/8, $0x0000000600000007
DATA perm16<>+88(SB)/8, $0x0000000400000005
DATA perm16<>+96(SB)/8, $0x0000000a0000000b
DATA perm16<>+104(SB)/8, $0x0000000800000009
DATA perm16<>+112(SB)/8, $0x0000000e0000000f
DATA perm16<>+120(SB)/8, $0x0000000c0000000d
GLOBL perm16<>(SB), RODATA|NOPTR, $128

// func cellAVX512(bw *BlockWorker, j *cellJob, S, base, sign float32)
TEXT ·cellAVX512(SB), NOSPLIT, $0-28
	MOVQ bw+0(FP), DI
	MOVQ j+8(FP), R8
	BRACKETREGS
	ROWSTRIDE
	MOVBQZX cellJob_flip(R8), AX
	ANDQ $1, AX
	SHLQ $6, AX
	LEAQ perm16<>(SB), DX
	VMOVDQU32 (DX)(AX*1), Z14
	LANES16
	XORQ CX, CX

zcell:
	MOVBQZX cellJob_cells(R8), AX
	BTQ CX, AX
	JCC znext

	// The window's rows: from row 0 down, or from row 3 up (flip&2).
	MOVQ cellJob_win(R8)(CX*8), AX
	SHLQ $2, AX
	MOVQ R14, DX
	MOVBQZX cellJob_flip(R8), BX
	TESTQ $2, BX
	JEQ zrows
	LEAQ (AX)(R14*2), AX
	ADDQ R14, AX
	NEGQ DX

zrows:
	MOVQ Model_offU(R9), SI
	WINZ(X3, Z3)
	MOVQ Model_offD(R9), SI
	WINZ(X0, Z0)
	MOVQ Model_offInv(R9), SI
	WINZ(X1, Z1)

	// zz = z[k] + tau (− drop); lhs = zz·inv
	VBROADCASTSS cellJob_z(R8)(CX*4), Z4
	VADDPS BlockWorker_tau(DI), Z4, Z4
	MOVQ Model_offDrp(R9), SI
	TESTQ SI, SI
	JEQ znodrop
	WINZ(X5, Z5)
	VSUBPS Z5, Z4, Z4

znodrop:
	VMULPS Z1, Z4, Z1

	// u = base + q·sign, k0 = int(u + S − ½)
	UPLUSS(Z3, Z5)
	BRACKETS2Z(zslow0, zdone0, zslow1, zdone1, zone)

	// visible: lhs ≥ min(t0, t1) and d ≤ lim
	VCMPPS $0x1d, Z9, Z1, K2
	VBROADCASTSS Model_lim(R9), Z10
	VCMPPS $0x12, Z10, Z0, K2, K2
	KMOVW K2, DX
	MOVW DX, cellJob_vis(R8)(CX*2)

znext:
	INCQ CX
	CMPQ CX, $4
	JLT zcell
	VZEROUPPER
	RET

// 3 (a lane's column: its index's low bits), 1 and −1 (nearAVX512).
DATA three16<>+0(SB)/4, $3
GLOBL three16<>(SB), RODATA|NOPTR, $4
DATA one<>+0(SB)/4, $0x3f800000
GLOBL one<>(SB), RODATA|NOPTR, $4
DATA minusOne<>+0(SB)/4, $0xbf800000
GLOBL minusOne<>(SB), RODATA|NOPTR, $4

// func nearAVX512(bw *BlockWorker, c, r int, z float32, act uint16, S, halfS float32) uint16
//
// nearAVX512 is BlockWorker.cell in 512-bit vectors: cell (c, r), its
// elevation z, for the lanes act, against the 16 lanes (lane b at column col + b mod 4, row
// row + b div 4), the per-lane offsets gathered from the offset tables
// and each lane's quadrant chosen by masks as quadrantU does (u = base +
// q·sign, as cellLanesAVX2 argues); lanes out of reach are not visible,
// the lane on the cell is. The same operations as cell's, so the same
// bits (TestBlockAVX2Twins).
TEXT ·nearAVX512(SB), NOSPLIT, $0-42
	MOVQ bw+0(FP), DI
	BRACKETREGS
	LANES16

	// dc, dr per lane (Z1, Z3), their magnitudes (Z5, Z6).
	MOVQ c+8(FP), AX
	SUBQ BlockWorker_col(DI), AX
	VPBROADCASTD AX, Z1
	VPANDD.BCST three16<>(SB), Z13, Z2
	VPSUBD Z2, Z1, Z1
	MOVQ r+16(FP), AX
	SUBQ BlockWorker_row(DI), AX
	VPBROADCASTD AX, Z3
	VPSRLD $2, Z13, Z2
	VPSUBD Z2, Z3, Z3
	VPABSD Z1, Z5
	VPABSD Z3, Z6

	// K3: within reach; K4: the lane on the cell; o = |dr|·(rc+1) + |dc|.
	MOVQ Model_rc(R9), AX
	VPBROADCASTD AX, Z7
	VPCMPD $2, Z7, Z5, K3
	MOVQ Model_rr(R9), DX
	VPBROADCASTD DX, Z8
	VPCMPD $2, Z8, Z6, K3, K3
	INCQ AX
	VPBROADCASTD AX, Z7
	VPMULLD Z7, Z6, Z9
	VPADDD Z5, Z9, Z9
	VPORD Z1, Z3, Z10
	VPTESTNMD Z10, Z10, K4

	// q, d, inv (and the drop) of the lanes within reach; 0 elsewhere.
	VPXORD Z16, Z16, Z16
	VPXORD Z0, Z0, Z0
	VPXORD Z17, Z17, Z17
	MOVQ Model_offU(R9), SI
	KMOVW K3, K1
	VGATHERDPS (SI)(Z9*4), K1, Z16
	MOVQ Model_offD(R9), SI
	KMOVW K3, K1
	VGATHERDPS (SI)(Z9*4), K1, Z0
	MOVQ Model_offInv(R9), SI
	KMOVW K3, K1
	VGATHERDPS (SI)(Z9*4), K1, Z17

	// zz = z + tau (− drop); lhs = zz·inv
	VBROADCASTSS z+24(FP), Z4
	VADDPS BlockWorker_tau(DI), Z4, Z4
	MOVQ Model_offDrp(R9), SI
	TESTQ SI, SI
	JEQ nnodrop
	VPXORD Z18, Z18, Z18
	KMOVW K3, K1
	VGATHERDPS (SI)(Z9*4), K1, Z18
	VSUBPS Z18, Z4, Z4

nnodrop:
	VMULPS Z17, Z4, Z17

	// The quadrant: dc < 0 (K5), dr > 0 (K6); sign +1 where they agree,
	// base S/2 where dr > 0, S where dc < 0 and dr ≤ 0, else 0.
	VPXORD Z2, Z2, Z2
	VPCMPD $1, Z2, Z1, K5
	VPCMPD $6, Z2, Z3, K6
	KXNORW K5, K6, K2
	VBROADCASTSS minusOne<>(SB), Z18
	VBROADCASTSS one<>(SB), Z19
	VMOVAPS Z19, K2, Z18
	VMULPS Z18, Z16, Z16
	VBROADCASTSS S+32(FP), Z20
	VXORPS Z19, Z19, Z19
	KANDNW K5, K6, K2
	VMOVAPS Z20, K2, Z19
	VBROADCASTSS halfS+36(FP), Z21
	VMOVAPS Z21, K6, Z19
	VADDPS Z16, Z19, Z3

	// k0 = int(u + S − ½), the brackets, the test.
	VADDPS Z20, Z3, Z3
	BRACKETS2Z(nslow0, ndone0, nslow1, ndone1, none)

	VCMPPS $0x1d, Z9, Z17, K3, K2
	VBROADCASTSS Model_lim(R9), Z10
	VCMPPS $0x12, Z10, Z0, K2, K2
	KORW K4, K2, K2
	KMOVW K2, AX
	ANDW act+28(FP), AX
	MOVW AX, ret+40(FP)
	VZEROUPPER
	RET
