//go:build amd64

package horizon

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The AVX2 kernels, in Go assembly so that a plain build (without
// GOEXPERIMENT=simd) runs vector code: the sector walk (walk_amd64.s), the
// conservative step (cons_amd64.s), the cell test (cells_amd64.s) and the
// bounds (bound_amd64.s), each computing its portable twin's bits
// (TestWalkAVX2Twin, TestConsAVX2Twin, TestBoundAVX2Twin,
// TestBlockAVX2Twins) on every AVX2 CPU, AVX-512 ones included. The
// assembly reads the BlockWorker, Model and jobs through go_asm.h's
// offsets, so a change of their layout reassembles it.
var (
	avx2Kernels = kernelSet{name: "avx2", walk: walkLanesAVX2, bound: boundAVX2, cells: cellLanesAVX2, cons: consLanesAVX2, consRun: consRunAVX2, near: nearAVX2, cut: cutLanesAsm, cutRun: cutRunAsm}
	asmKernels  = &avx2Kernels
	asmCPU      = cpu.X86.HasAVX2
)

// walkAVX2 runs walkLanes (walk_amd64.s): the slope bounds of the nz
// chunks z[:nz] into sb[:nz·Lanes], then the steps on prof[:n·Lanes],
// rec[:n] and the lanes' cells of elev (row stride pw cells); it returns
// the steps filled. Every address it reads must lie in elev
// (walkLanesAVX2 checks).
//
//go:noescape
func walkAVX2(prof, rec *float32, n int, elev *float32, pw int, ext *[Lanes]int32, eye *[Lanes]float32, z, sb *float32, nz int, a0, maj, mw int, mf int64, inv, dk float32) int

// walkLanesAVX2 is walkLanes in AVX2 (walkAVX2) when every cell its steps
// read lies in elev and the lanes are a block's 4×4 observers (lane[b] =
// (b/4)·pw + b%4, pw = lane[BlockSide]); otherwise walkLanes itself.
func walkLanesAVX2(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32,
	a0, maj, mw int, mf int64, inv, dk float32) int {
	n := len(rec)
	pw := int(lane[BlockSide])
	ok := n > 0 && len(prof) >= n*Lanes && len(sb) >= len(z)*Lanes && len(z) <= (n+1<<stepShift-1)>>stepShift && mw > 0 && pw > 0
	for b := range Lanes {
		ok = ok && int(lane[b]) == (b/BlockSide)*pw+b%BlockSide
	}
	if ok {
		// Step i reads a0 + i·maj + ⌊(i+1)·mf⌋·mw + lane[b] and the cell mw
		// further: each term is monotone in i, so its ends bound it.
		lo, hi := a0+min(0, (n-1)*maj), a0+max(0, (n-1)*maj)
		f0, f1 := int(mf>>32)*mw, int((int64(n)*mf)>>32)*mw
		lo, hi = lo+min(f0, f1), hi+max(f0, f1)+(BlockSide-1)*(pw+1)+mw
		ok = lo >= 0 && hi < len(elev)
	}
	if !ok {
		return walkLanes(prof, rec, elev, lane, ext, eye, z, sb, a0, maj, mw, mf, inv, dk)
	}
	var zp, sbp *float32
	if len(z) > 0 {
		zp, sbp = &z[0], &sb[0]
	}
	return walkAVX2(&prof[0], &rec[0], n, &elev[0], pw, ext, eye, zp, sbp, len(z), a0, maj, mw, mf, inv, dk)
}

// consAVX2 is consLanes16 in AVX2 (cons_amd64.s), reading bw, its Model
// and j through go_asm.h's offsets; the grid must be at least 2×2.
//
//go:noescape
func consAVX2(bw *BlockWorker, j *consJob)

// consLanesAVX2 is consLanes16 with the step in AVX2 (consAVX2), or in
// 512-bit vectors where the CPU has AVX-512F (consAVX512, asm512). Every
// cell it reads lies in the padded tables: a patch within BlockSide − 1 of
// the grid, as consLanes16 reads.
func consLanesAVX2(bw *BlockWorker, j *consJob) {
	switch {
	case bw.m.t.Width < 2 || bw.m.t.Height < 2:
		consLanes(bw, j)
	case asm512:
		consAVX512(bw, j)
	default:
		consAVX2(bw, j)
	}
}

// asm512 reports whether the assembly's step and cell test run in
// 512-bit vectors (consAVX512, cellAVX512): on CPUs with AVX-512F, the
// same bits as consAVX2's and cellAVX2's.
var asm512 = cpu.X86.HasAVX512F

// cellAVX2 is cellLanes in AVX2 (cells_amd64.s), with or without Earth
// curvature's drops (Model.offDrp): S the sectors, and each cell's
// azimuth in sectors u = base + q·sign from its offset's q (quad 0: 0, +1;
// 1: S/2, −1; 2: S/2, +1; 3: S, −1).
//
//go:noescape
func cellAVX2(bw *BlockWorker, j *cellJob, S, base, sign float32)

// cellLanesAVX2 is cellLanes with the test in AVX2 (cellAVX2, or
// cellAVX512 where asm512): base +
// q·sign is cellLanes's u bit for bit (q·±1 is exact, x + (−q) is x − q,
// and 0 + q differs from q only in a zero's sign, which u + S drops).
func cellLanesAVX2(bw *BlockWorker, j *cellJob) {
	if len(bw.prof) > math.MaxInt32 {
		cellLanes(bw, j) // the gathers' indices are 32-bit
		return
	}
	S := float32(bw.m.p.Sectors)
	half := float32(S / 2)
	base, sign := [4]float32{0, half, half, S}[j.quad&3], [4]float32{1, -1, 1, -1}[j.quad&3]
	if asm512 {
		cellAVX512(bw, j, S, base, sign)
		return
	}
	cellAVX2(bw, j, S, base, sign)
}

// boundAVX2 is boundLanes in AVX2 (bound_amd64.s).
//
//go:noescape
func boundAVX2(bw *BlockWorker, j *boundJob)

// consAVX512 is consAVX2 in 512-bit vectors (cons_amd64.s), for CPUs with
// AVX-512F.
//
//go:noescape
func consAVX512(bw *BlockWorker, j *consJob)

// consRun512 runs the table's steps o … o+n−1 (o = k·consL + i) as
// consAVX512 would one after the other, writing j.cur after each to the
// next 16 floats from row (cons_amd64.s); j.segs is left as it was.
//
//go:noescape
func consRun512(bw *BlockWorker, j *consJob, o, n int, row *float32)

// consRun2 is consRun512 with consAVX2's step.
//
//go:noescape
func consRun2(bw *BlockWorker, j *consJob, o, n int, row *float32)

// consRunAVX2 is kernelSet.consRun in assembly: consRun512 where the step
// runs in 512-bit vectors (asm512), else consRun2.
func consRunAVX2(bw *BlockWorker, j *consJob, k, i, n int, row []float32) {
	m := bw.m
	o := k*m.consL + i
	if n <= 0 || i < 1 || i+n-1 > m.consL || len(row) < n*Lanes {
		panic("horizon: consRun out of the table")
	}
	switch {
	case m.t.Width < 2 || m.t.Height < 2:
		for r := range n {
			j.segs, j.bulge, j.drop, j.inv = m.consStep(k, i+r, &bw.consSegs)
			consLanes(bw, j)
			*(*[Lanes]float32)(row[r*Lanes:]) = j.cur
		}
	case asm512:
		consRun512(bw, j, o, n, &row[0])
	default:
		consRun2(bw, j, o, n, &row[0])
	}
}

// cellAVX512 is cellAVX2 in 512-bit vectors (cells_amd64.s), for CPUs
// with AVX-512F.
//
//go:noescape
func cellAVX512(bw *BlockWorker, j *cellJob, S, base, sign float32)

// nearAVX512 is BlockWorker.cell in 512-bit vectors (cells_amd64.s):
// S the sectors and halfS = S/2, as quadrantU computes it.
//
//go:noescape
func nearAVX512(bw *BlockWorker, c, r int, z float32, act uint16, S, halfS float32) uint16

// nearAVX2 is kernelSet.near in assembly: nearAVX512 where asm512 and
// the profiles' indices fit the gathers' 32 bits (the offset tables'
// always do: New refuses grids over 32767 cells a side), else
// BlockWorker.cell.
func nearAVX2(bw *BlockWorker, c, r int, act uint16) uint16 {
	m := bw.m
	if !asm512 || len(bw.prof) > math.MaxInt32 {
		return bw.cell(c, r, act)
	}
	S := float32(m.p.Sectors)
	return nearAVX512(bw, c, r, m.top[r*m.t.Width+c], act, S, float32(S/2))
}

// cutAVX512 is cutLanesGo in 512-bit vectors (cut_amd64.s), for CPUs with
// AVX-512F: z is the first sample of the surface every lane's line lies
// in (cutWalk checks).
//
//go:noescape
func cutAVX512(st *cutLanes, z *float32)

// cutLanesAsm is kernelSet.cut in assembly: cutAVX512 where asm512, else
// cutLanesGo.
func cutLanesAsm(st *cutLanes, z []float32) {
	if asm512 {
		cutAVX512(st, &z[0])
		return
	}
	cutLanesGo(st, z)
}

// cutRunAVX512 is kernelSet.cutRun in 512-bit vectors (cut_amd64.s): the
// loads-of-four path of cutAVX512 for cuts c0 … c1, the cut's interval
// and reciprocals read from tab and recip, F in st and P kept in a
// register between cuts, the rows written from it (cutLanes.cutRows).
//
//go:noescape
func cutRunAVX512(st *cutLanes, z *float32, tab *cutStep, recip *float64, c0, c1, base0, stepX int)

// cutRunAsm is kernelSet.cutRun in assembly: cutRunAVX512 where asm512;
// elsewhere it runs nothing (the walk takes the cuts one at a time).
func cutRunAsm(st *cutLanes, z []float32, tab []cutStep, recip []float64, c0, c1, base0, stepX int) bool {
	if !asm512 || c0 < 1 || c1 < c0 || c1 >= len(tab) || c1 >= len(recip) || c1+1 >= len(st.rows) || int(st.jEnd)*Lanes > len(st.prof) {
		return false
	}
	cutRunAVX512(st, &z[0], &tab[0], &recip[0], c0, c1, base0, stepX)
	return true
}
