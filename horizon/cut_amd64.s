//go:build amd64

#include "textflag.h"
#include "go_asm.h"

// HALF takes eight lanes' d, in D (their lanes in KM, their F at
// cutLanes_F+OFF): f = d·rp (d·rm below zero); where f > F (KU), F = f;
// YP the slope f·aMin (f·aMax below zero) rounded toward −∞ to float32.
// Z24–Z27 hold rp, rm, aMin and aMax, Z5 zero; K7, Z28 and Z29 scratch.
#define HALF(D, KM, OFF, YP, KU) \
	VCMPPD $1, Z5, D, K7; \
	VMOVAPD Z24, Z28; \
	VMOVAPD Z25, K7, Z28; \
	VMULPD Z28, D, D; \
	VMOVUPD cutLanes_F+OFF(DI), Z29; \
	VCMPPD $0x1e, Z29, D, KM, KU; \
	VMOVAPD D, KU, Z29; \
	VMOVUPD Z29, cutLanes_F+OFF(DI); \
	VCMPPD $1, Z5, D, K7; \
	VMOVAPD Z26, Z28; \
	VMOVAPD Z27, K7, Z28; \
	VMULPD Z28, D, D; \
	VCVTPD2PS.RD_SAE D, YP

// END sets ZV to an end of the lanes' intervals (K1), rows I on the
// lanes' lines Z7: z[I], interpolated toward z[I+1] by the fractions F
// in the lanes where F ≠ 0 (K3; that gather is empty where none is, and
// the sum masked to them). ZT, Z8 and K2 are scratch, Z12 holds 1 and
// Z5 zero.
#define END(I, F, ZV, ZT) \
	VPADDD I, Z7, Z8; \
	KMOVW K1, K2; \
	VGATHERDPS (SI)(Z8*4), K2, ZV; \
	VCMPPS $4, Z5, F, K1, K3; \
	VPADDD Z12, Z8, Z8; \
	KMOVW K3, K2; \
	VGATHERDPS (SI)(Z8*4), K2, ZT; \
	VSUBPS ZV, ZT, ZT; \
	VMULPS ZT, F, ZT; \
	VADDPS ZT, ZV, K3, ZV

// STRIDES sets LOAD4's and RAW4's registers from st (DI): R8 the lines'
// stride in bytes, R9 three of them, BX colMaj and Z30 the transposition.
#define STRIDES \
	MOVLQSX cutLanes_lim(DI), R8; \
	INCQ R8; \
	SHLQ $2, R8; \
	LEAQ (R8)(R8*2), R9; \
	MOVBLZX cutLanes_colMaj(DI), BX; \
	VMOVDQU32 transpose16<>(SB), Z30

// LOAD4 sets Z (X its low quarter) to the four lanes' samples of each of
// the four lines at byte offset OFF from R10, the lines R8 bytes apart
// (R9 = 3·R8), as the lanes order them: transposed (Z30) where BX ≠ 0.
#define LOAD4(OFF, Z, X) \
	VMOVUPS OFF(R10), X; \
	VINSERTF32X4 $1, OFF(R10)(R8*1), Z, Z; \
	VINSERTF32X4 $2, OFF(R10)(R8*2), Z, Z; \
	VINSERTF32X4 $3, OFF(R10)(R9*1), Z, Z; \
	TESTL BX, BX; \
	JEQ 2(PC); \
	VPERMPS Z, Z30, Z

// RAW4 is LOAD4 without the transposition: the lines' order, which a
// column-major sector's lanes take once the lane-wise work is done.
#define RAW4(OFF, Z, X) \
	VMOVUPS OFF(R10), X; \
	VINSERTF32X4 $1, OFF(R10)(R8*1), Z, Z; \
	VINSERTF32X4 $2, OFF(R10)(R8*2), Z, Z; \
	VINSERTF32X4 $3, OFF(R10)(R9*1), Z, Z

// FRAC4 interpolates the loads of four (LOAD4) ZV towards the next
// sample, by the fraction F (broadcast): where F ≠ 0, ZV + F·(next − ZV),
// as cutAt computes it, ZT (XT its low quarter) scratch. The next sample
// lies inside each lane's line on the loads-of-four path.
#define FRAC4(F, ZV, ZT, XT) \
	VCMPPS $4, Z5, F, K3; \
	LOAD4(4, ZT, XT); \
	VSUBPS ZV, ZT, ZT; \
	VMULPS ZT, F, ZT; \
	VADDPS ZT, ZV, K3, ZV

// Lane b's place in the loads of a column-major sector: (b mod 4)·4 + b/4.
DATA transpose16<>+0(SB)/8, $0x0000000400000000
DATA transpose16<>+8(SB)/8, $0x0000000c00000008
DATA transpose16<>+16(SB)/8, $0x0000000500000001
DATA transpose16<>+24(SB)/8, $0x0000000d00000009
DATA transpose16<>+32(SB)/8, $0x0000000600000002
DATA transpose16<>+40(SB)/8, $0x0000000e0000000a
DATA transpose16<>+48(SB)/8, $0x0000000700000003
DATA transpose16<>+56(SB)/8, $0x0000000f0000000b
GLOBL transpose16<>(SB), RODATA|NOPTR, $64

// func cutAVX512(st *cutLanes, z *float32)
//
// cutAVX512 is cutLanesGo (cutblock.go) in 512-bit vectors: the cut st
// describes for the lanes st.ev, the sixteen lanes at once. Each lane's
// interval is clipped to the grid's hull by masks; its ends and the
// samples between are gathered, masked to the lanes whose interval holds
// them, so that no lane reads outside its line — or, where cutLanes.fast
// says no lane's interval leaves the grid, loaded four lanes at a time
// (LOAD4: the four lanes on one line read consecutive samples). The float32
// interpolations and the float64 threshold and slope are cutLanesGo's
// operations, each rounded on its own; the slope's rounding down is the
// conversion's own rounding toward −∞ (cutSlopeOf's result). Minima are
// VMINPS where cutLanesGo uses Go's min: the same value for the finite
// elevations New admits, but for the sign of a zero.
//
// Registers: DI st, SI z; K1 the lanes; Z1 a and Z2 e (clipped), Z3 fa
// and Z4 fe, Z5 zero, Z7 the lanes' line in z (X0 + off), Z9 the least
// value so far.
TEXT ·cutAVX512(SB), NOSPLIT, $0-16
	MOVQ st+0(FP), DI
	MOVQ z+8(FP), SI
	MOVWLZX cutLanes_ev(DI), AX
	KMOVW AX, K1
	VPXORD Z5, Z5, Z5
	MOVBLZX cutLanes_fast(DI), AX
	TESTL AX, AX
	JNE fast
	VMOVDQU32 cutLanes_minor(DI), Z0
	VPBROADCASTD cutLanes_loI(DI), Z1
	VPADDD Z0, Z1, Z1
	VMOVDQA32 Z1, Z13 // a before clipping
	VPBROADCASTD cutLanes_hiI(DI), Z2
	VPADDD Z0, Z2, Z2
	VBROADCASTSS cutLanes_loF(DI), Z3
	VBROADCASTSS cutLanes_hiF(DI), Z4

	// a < 0: a = 0, fa = 0; e ≥ lim: e = lim, fe = 0.
	VPCMPD $1, Z5, Z1, K2
	VMOVDQA32 Z5, K2, Z1
	VMOVAPS Z5, K2, Z3
	VPBROADCASTD cutLanes_lim(DI), Z6
	VPCMPD $5, Z6, Z2, K2
	VMOVDQA32 Z6, K2, Z2
	VMOVAPS Z5, K2, Z4

	// Empty intervals (a > e, or a = e and fa > fe) leave.
	VPCMPD $6, Z2, Z1, K2
	VPCMPD $0, Z2, Z1, K3
	VCMPPS $0x1e, Z4, Z3, K3, K3
	KORW K2, K3, K2
	KANDNW K1, K2, K1
	KORTESTW K1, K1
	JEQ done

	// The lanes' line: X0 + off.
	VMOVDQU32 cutLanes_X0(DI), Z7
	VPBROADCASTD cutLanes_off(DI), Z8
	VPADDD Z8, Z7, Z7
	MOVL $1, AX
	VPBROADCASTD AX, Z12 // 1

	// The low end: z[a], interpolated toward z[a+1] where fa ≠ 0.
	END(Z1, Z3, Z9, Z10)

	// The samples between: rows a₀ + t, t = 1 … hiI − loI (a₀ before
	// clipping), in the lanes where a < row ≤ e.
	MOVL cutLanes_hiI(DI), CX
	SUBL cutLanes_loI(DI), CX
	JLE hi
	VPADDD Z12, Z13, Z13
	VPADDD Z13, Z7, Z14

inner:
	KMOVW K1, K3
	VPCMPD $6, Z1, Z13, K3, K3
	VPCMPD $2, Z2, Z13, K3, K3
	KMOVW K3, K2
	VGATHERDPS (SI)(Z14*4), K2, Z15
	VMINPS Z15, Z9, K3, Z9
	VPADDD Z12, Z13, Z13
	VPADDD Z12, Z14, Z14
	DECL CX
	JNE inner

hi:
	// The high end: z[e], interpolated toward z[e+1] where fe ≠ 0.
	END(Z2, Z4, Z10, Z11)
	VMINPS Z10, Z9, K1, Z9

slopes:
	// d = g − ze in float64, f = d·rp (d·rm below zero), in two halves of
	// eight lanes (K1 and K4 their lanes).
	KSHIFTRW $8, K1, K4
	VBROADCASTSD cutLanes_rp(DI), Z24
	VBROADCASTSD cutLanes_rm(DI), Z25
	VBROADCASTSD cutLanes_aMin(DI), Z26
	VBROADCASTSD cutLanes_aMax(DI), Z27
	VCVTPS2PD Y9, Z20
	VEXTRACTF64X4 $1, Z9, Y21
	VCVTPS2PD Y21, Z21
	VCVTPS2PD cutLanes_ze(DI), Z22
	VCVTPS2PD cutLanes_ze+32(DI), Z23
	VSUBPD Z22, Z20, Z20
	VSUBPD Z23, Z21, Z21
	HALF(Z20, K1, 0, Y16, K5)
	HALF(Z21, K4, 64, Y17, K6)

	// P: the new slopes where F rose.
	VINSERTF64X4 $1, Y17, Z16, Z16
	KSHIFTLW $8, K6, K6
	KORW K5, K6, K5
	VMOVUPS cutLanes_P(DI), Z18
	VMOVAPS Z16, K5, Z18
	VMOVUPS Z18, cutLanes_P(DI)

done:
	VZEROUPPER
	RET

fast:
	// Every lane's interval and the sample after it lie inside its line:
	// V_t, the lanes' samples t rows after a, is four loads of four
	// (LOAD4), t = 0 … hiI − loI + 1, and the ends' fractions are the
	// cut's own.
	MOVLQSX cutLanes_base(DI), AX
	LEAQ (SI)(AX*4), R10
	STRIDES
	MOVL cutLanes_hiI(DI), CX
	SUBL cutLanes_loI(DI), CX
	LOAD4(0, Z9, X9)
	VBROADCASTSS cutLanes_loF(DI), Z3
	FRAC4(Z3, Z9, Z10, X10)

	// The samples between, V_1 … V_w (w = hiI − loI), then the high end
	// from V_w and V_w+1.
	MOVQ CX, DX
	TESTL CX, CX
	JLE fhi

finner:
	ADDQ $4, R10
	LOAD4(0, Z15, X15)
	VMINPS Z15, Z9, Z9
	DECL DX
	JNE finner

fhi:
	LOAD4(0, Z10, X10)
	VBROADCASTSS cutLanes_hiF(DI), Z4
	FRAC4(Z4, Z10, Z11, X11)
	VMINPS Z10, Z9, Z9
	JMP slopes

// func cutRunAVX512(st *cutLanes, z *float32, tab *cutStep, recip *float64, c0, c1, base0, stepX int)
//
// cutRunAVX512 takes cuts c0 … c1 as cutAVX512's loads-of-four path would
// one after the other (every cut's four lines and the sample after its
// interval inside the grid: cutRun checks), for the lanes st.ev: cut c's
// interval from tab[c], rp and rm from recip[c] and recip[c−1], its lines
// from z[base0 + (c − c0)·stepX + loI]. P stays in Z18 between cuts and
// is stored after each in the rows that end at it (cutLanes.cutRows); F
// is read and written in st as cutAVX512 does.
//
// Registers: DI st, SI z, R11 tab, R12 recip, R13 c, R14 st.prof's data,
// DX the cut's base; K1 and K4 the lanes (low and high eight), Z22 and
// Z23 the eyes in float64, Z26 and Z27 aMin and aMax.
TEXT ·cutRunAVX512(SB), NOSPLIT, $0-64
	MOVQ st+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ tab+16(FP), R11
	MOVQ recip+24(FP), R12
	MOVQ c0+32(FP), R13
	MOVQ base0+48(FP), DX
	MOVWLZX cutLanes_ev(DI), AX
	KMOVW AX, K1
	KSHIFTRW $8, K1, K4
	VPXORD Z5, Z5, Z5
	STRIDES
	VBROADCASTSD cutLanes_aMin(DI), Z26
	VBROADCASTSD cutLanes_aMax(DI), Z27
	VCVTPS2PD cutLanes_ze(DI), Z22
	VCVTPS2PD cutLanes_ze+32(DI), Z23
	VMOVUPS cutLanes_P(DI), Z18
	MOVQ cutLanes_prof(DI), R14

rcut:
	// Cut c's interval: R10 its lines' first sample, CX = w = hiI − loI.
	MOVQ R13, AX
	SHLQ $4, AX
	ADDQ R11, AX
	MOVLQSX 0(AX), R10
	MOVL 4(AX), CX
	SUBL R10, CX
	ADDQ DX, R10
	LEAQ (SI)(R10*4), R10
	VBROADCASTSS 8(AX), Z3
	VBROADCASTSS 12(AX), Z4
	// The rows V_0 … V_w+1 are each loaded once, in the lines' order
	// (RAW4); the lane-wise operations commute with the lanes' order,
	// which the least value takes once at the end. The low end: V_0,
	// interpolated toward V_1 where loF ≠ 0.
	RAW4(0, Z8, X8)
	RAW4(4, Z15, X15)
	VCMPPS $4, Z5, Z3, K3
	VSUBPS Z8, Z15, Z10
	VMULPS Z10, Z3, Z10
	VMOVAPS Z8, Z9
	VADDPS Z10, Z8, K3, Z9
	TESTL CX, CX
	JGT rbetween
	// w = 0: the high end is V_0 toward V_1.
	VMOVAPS Z8, Z10
	VMOVAPS Z15, Z11
	JMP rhi

rbetween:
	// The samples between, V_1 … V_w, then V_w+1 after them.
	VMINPS Z15, Z9, Z9
	ADDQ $4, R10
	DECL CX
	JEQ rlast

rinner:
	ADDQ $4, R10
	RAW4(0, Z15, X15)
	VMINPS Z15, Z9, Z9
	DECL CX
	JNE rinner

rlast:
	VMOVAPS Z15, Z10
	RAW4(4, Z11, X11)

rhi:
	// The high end: V_w (Z10) toward V_w+1 (Z11) where hiF ≠ 0.
	VCMPPS $4, Z5, Z4, K3
	VSUBPS Z10, Z11, Z11
	VMULPS Z11, Z4, Z11
	VADDPS Z11, Z10, K3, Z10
	VMINPS Z10, Z9, Z9
	TESTL BX, BX
	JEQ 2(PC)
	VPERMPS Z9, Z30, Z9

	// The slopes, as cutAVX512's.
	VBROADCASTSD (R12)(R13*8), Z24
	VBROADCASTSD -8(R12)(R13*8), Z25
	VCVTPS2PD Y9, Z20
	VEXTRACTF64X4 $1, Z9, Y21
	VCVTPS2PD Y21, Z21
	VSUBPD Z22, Z20, Z20
	VSUBPD Z23, Z21, Z21
	HALF(Z20, K1, 0, Y16, K5)
	HALF(Z21, K4, 64, Y17, K6)
	VINSERTF64X4 $1, Y17, Z16, Z16
	KSHIFTLW $8, K6, K6
	KORW K5, K6, K5
	VMOVAPS Z16, K5, Z18

	// The rows that end at cut c: st.rows[c] … min(st.rows[c+1], jEnd) − 1.
	MOVQ cutLanes_rows(DI), AX
	MOVLQSX 4(AX)(R13*4), CX
	MOVLQSX (AX)(R13*4), AX
	MOVLQSX cutLanes_jEnd(DI), R10
	CMPQ CX, R10
	CMOVQGT R10, CX
	CMPQ AX, CX
	JGE rnext
	SHLQ $6, AX
	SHLQ $6, CX

rrow:
	VMOVUPS Z18, (R14)(AX*1)
	ADDQ $64, AX
	CMPQ AX, CX
	JLT rrow

rnext:
	ADDQ stepX+56(FP), DX
	INCQ R13
	CMPQ R13, c1+40(FP)
	JLE rcut

	VMOVUPS Z18, cutLanes_P(DI)
	VZEROUPPER
	RET
