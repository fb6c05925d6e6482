//go:build goexperiment.simd && amd64

package horizon

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

// The block engine's kernels in AVX-512 (512-bit vectors of the 16 lanes)
// through Go's experimental simd/archsimd: each computes the same IEEE
// float32 operations in the same order as its portable twin in lanes.go —
// no fused multiply-add, comparisons and selects in place of max — so that
// both give the same bits (TestKernelTwins).

var avx512Kernels = kernelSet{name: "avx512",
	walk: func(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32, a0, maj, mw int, mf int64, inv, dk float32) int {
		archsimd.ClearAVXUpperBits()
		n := walkLanes16(prof, rec, elev, lane, ext, eye, z, sb, a0, maj, mw, mf, inv, dk)
		archsimd.ClearAVXUpperBits()
		return n
	},
	bound: func(bw *BlockWorker, j *boundJob) {
		archsimd.ClearAVXUpperBits()
		boundLanes16(bw, j)
		archsimd.ClearAVXUpperBits()
	},
	cells: func(bw *BlockWorker, j *cellJob) {
		archsimd.ClearAVXUpperBits()
		cellLanes16(bw, j)
		archsimd.ClearAVXUpperBits()
	},
	cons: func(bw *BlockWorker, j *consJob) {
		archsimd.ClearAVXUpperBits()
		consLanes16(bw, j)
		archsimd.ClearAVXUpperBits()
	},
}

// vectorKernels and vectorCPU: this build's vector set and whether the
// CPU runs it (lanes.go).
var vectorKernels, vectorCPU = &avx512Kernels, simdCPU()

// simdCPU reports whether the CPU runs the AVX-512 kernels.
func simdCPU() bool { return archsimd.X86.AVX512() }

// bcast broadcasts x to the 16 lanes through an integer register: Go loads
// a float32 from memory with a legacy SSE MOVSS, which after 512-bit
// instructions costs a state transition on some CPUs (on the 2-core test
// machine the block engine ran 6.5× slower than the portable kernels
// until its loops lost every legacy SSE instruction); its bits load as an
// integer instead.
func bcast(x float32) archsimd.Float32x16 {
	return archsimd.BroadcastUint32x16(math.Float32bits(x)).AsFloat32x16()
}

// bcastp broadcasts *p, loaded as an integer (see bcast).
func bcastp(p *float32) archsimd.Float32x16 {
	// SAFETY: p points to a live float32; its 4 bytes read as a uint32 are
	// the same bits, loaded without an SSE register.
	return archsimd.BroadcastUint32x16(*(*uint32)(unsafe.Pointer(p))).AsFloat32x16()
}

// floatBits views a float32 slice as its bit patterns, for loads that must not
// go through SSE registers (bcast).
func floatBits(f []float32) []uint32 {
	if len(f) == 0 {
		return nil
	}
	// SAFETY: float32 and uint32 have the same size and alignment; the view
	// covers exactly f's elements and is only read while f is live.
	return unsafe.Slice((*uint32)(unsafe.Pointer(&f[0])), len(f))
}

// rows4 loads the 4×4 lanes' cells at elev[a + r·pw + c], r, c = 0…3, lane
// 4r+c.
func rows4(elev []float32, a, pw int) archsimd.Float32x16 {
	r0 := archsimd.LoadFloat32x4((*[4]float32)(elev[a : a+4]))
	r1 := archsimd.LoadFloat32x4((*[4]float32)(elev[a+pw : a+pw+4]))
	r2 := archsimd.LoadFloat32x4((*[4]float32)(elev[a+2*pw : a+2*pw+4]))
	r3 := archsimd.LoadFloat32x4((*[4]float32)(elev[a+3*pw : a+3*pw+4]))
	var lo, hi archsimd.Float32x8
	lo = lo.SetLo(r0).SetHi(r1)
	hi = hi.SetLo(r2).SetHi(r3)
	var v archsimd.Float32x16
	return v.SetLo(lo).SetHi(hi)
}

// walkLanes16 is walkLanes in AVX-512. The lanes are the block's 4×4
// observers, lane[BlockSide] the row stride of elev. (Reading a copy of
// the elevations with four rows interleaved, one load per window instead
// of four, was slower: 953 against 764 µs per point at 1025², S = 1024.)
func walkLanes16(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32,
	a0, maj, mw int, mf int64, inv, dk float32) int {
	eyeV := archsimd.LoadFloat32x16(eye)
	extV := archsimd.LoadInt32x16(ext)
	n := len(rec)
	// slopeBounds in vectors.
	invV := bcast(inv)
	zero := bcast(0)
	next := bcast(float32(math.Inf(-1)))
	for c := len(z) - 1; c >= 0; c-- {
		tn := invV.Mul(bcastp(&rec[c<<stepShift]))
		tf := invV.Mul(bcastp(&rec[min((c+1)<<stepShift, n)-1]))
		h := bcastp(&z[c]).Sub(eyeV)
		s := h.Mul(tn).Merge(h.Mul(tf), h.GreaterEqual(zero))
		next = s.Merge(next, s.Greater(next))
		next.Store((*[Lanes]float32)(sb[c*Lanes : (c+1)*Lanes]))
	}
	cur := bcast(float32(math.Inf(-1)))
	pw := int(lane[BlockSide])
	y := mf
	prof = prof[:n*Lanes]
	// The two cells each lane interpolates between, as two vectors: along
	// rows (mw = 1) from four 8-float rows, along columns from four rows
	// and the fifth below them.
	pick0 := archsimd.LoadUint32x16(&rowPick[0])
	pick1 := archsimd.LoadUint32x16(&rowPick[1])
	down := archsimd.LoadUint32x16(&rowDown)
	// The step's scalars in vectors, so that the loop runs no legacy SSE
	// instruction (a scalar float op after a 512-bit one costs a state
	// transition on some CPUs: 6.5× slower walks were measured): y's
	// fraction from its low 32 bits, i+1 counted in floats (exact below
	// 2^24), rec[i] from 16 loaded at a time and spread by a permutation.
	dkV := bcast(dk)
	oneF, scale := bcast(1), bcast(0x1p-32)
	oneU, mfLo := archsimd.BroadcastUint32x16(1), archsimd.BroadcastUint32x16(uint32(mf))
	yLo := archsimd.BroadcastUint32x16(uint32(y))
	fiV := oneF
	var recV archsimd.Float32x16
	var idx archsimd.Uint32x16
	for i := 0; i < n; i++ {
		if i&(Lanes-1) == 0 {
			if i+Lanes <= n {
				recV = archsimd.LoadFloat32x16((*[Lanes]float32)(rec[i : i+Lanes]))
			} else {
				var tail [Lanes]float32
				copy(tail[:], rec[i:])
				recV = archsimd.LoadFloat32x16(&tail)
			}
			idx = archsimd.Uint32x16{}
		}
		a := a0 + int(y>>32)*mw
		var z0, z1 archsimd.Float32x16
		if mw == 1 {
			var lo, hi archsimd.Float32x16
			lo = lo.SetLo(archsimd.LoadFloat32x8((*[8]float32)(elev[a : a+8]))).SetHi(archsimd.LoadFloat32x8((*[8]float32)(elev[a+pw : a+pw+8])))
			hi = hi.SetLo(archsimd.LoadFloat32x8((*[8]float32)(elev[a+2*pw : a+2*pw+8]))).SetHi(archsimd.LoadFloat32x8((*[8]float32)(elev[a+3*pw : a+3*pw+8])))
			z0, z1 = lo.ConcatPermute(hi, pick0), lo.ConcatPermute(hi, pick1)
		} else {
			z0 = rows4(elev, a, pw)
			z1 = z0.ConcatPermute(archsimd.LoadFloat32x16((*[Lanes]float32)(elev[a+4*pw:a+4*pw+Lanes])), down)
		}
		w := yLo.ConvertToFloat32().Mul(scale)
		t := invV.Mul(recV.Permute(idx))
		zz := z0.Add(w.Mul(z1.Sub(z0)))
		s := zz.Sub(dkV.Mul(fiV).Mul(fiV)).Sub(eyeV).Mul(t)
		live := archsimd.BroadcastInt32x16(int32(i)).Less(extV)
		cur = s.Merge(cur, s.Greater(cur).And(live))
		cur.Store((*[Lanes]float32)(prof[i*Lanes : (i+1)*Lanes]))
		if (i+1)&(1<<stepShift-1) == 0 {
			if c := (i + 1) >> stepShift; c < len(z) {
				ok := cur.GreaterEqual(archsimd.LoadFloat32x16((*[Lanes]float32)(sb[c*Lanes : (c+1)*Lanes]))).ToBits()
				if archsimd.BroadcastInt32x16(int32(i+1)).Less(extV).ToBits()&^ok == 0 {
					return i + 1
				}
			}
		}
		y += mf
		yLo = yLo.Add(mfLo)
		fiV = fiV.Add(oneF)
		idx = idx.Add(oneU)
		a0 += maj
	}
	return n
}

// rowPick[d] takes, from four 8-float rows as two vectors, the lanes'
// cells (row y, column x+d): element 8y + x + d.
var rowPick = [2][Lanes]uint32{
	{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27},
	{1, 2, 3, 4, 9, 10, 11, 12, 17, 18, 19, 20, 25, 26, 27, 28},
}

// rowDown takes the lanes' cells one row down from the lanes' own and the
// four cells of the row below them (a second vector's first four).
var rowDown = [Lanes]uint32{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}

// boundLanes16 is boundLanes in AVX-512.
func boundLanes16(bw *BlockWorker, j *boundJob) {
	tau := archsimd.LoadFloat32x16(&bw.tau)
	zero := bcast(0)
	invNear, invFar := bcastp(&j.invNear), bcastp(&j.invFar)
	zHi := bcastp(&j.zmax).Add(tau).Sub(bcastp(&j.drpNear))
	zLo := bcastp(&j.zmin).Add(tau).Sub(bcastp(&j.drpFar))
	sHi := zHi.Mul(invNear).Merge(zHi.Mul(invFar), zHi.GreaterEqual(zero))
	sLo := zLo.Mul(invFar).Merge(zLo.Mul(invNear), zLo.GreaterEqual(zero))
	dNear, dFar, margin := bcastp(&j.dNear), bcastp(&j.dFar), bcast(marginSteps)
	secInv, prof := bw.m.secInvX, bw.dec
	hid, vis := j.hid, j.vis
	// The sectors' near and far steps, 16 sectors at a time in vectors
	// (boundLanes's float32(d·inv) − marginSteps, truncated).
	// The steps go to the worker's scratch: arrays on the stack are
	// zeroed with legacy SSE stores, which cost a state transition here.
	jns, jfs := &bw.jn, &bw.jf
	for k0 := j.kLo; k0 <= j.kHi && hid|vis != 0; k0 += Lanes {
		m := min(Lanes, j.kHi+1-k0)
		var iv archsimd.Float32x16
		if k0+Lanes <= len(secInv) {
			iv = archsimd.LoadFloat32x16((*[Lanes]float32)(secInv[k0 : k0+Lanes])) // lanes from m on are not read
		} else {
			invs := &bw.invs
			copy(invs[:m], secInv[k0:k0+m])
			iv = archsimd.LoadFloat32x16(invs)
		}
		dNear.Mul(iv).Sub(margin).ConvertToInt32().Store(jns)
		dFar.Mul(iv).Sub(margin).ConvertToInt32().Store(jfs)
		for i := 0; i < m && hid|vis != 0; i++ {
			k := k0 + i
			n, st := int(bw.n[k]), int(bw.decStart[k])
			jn := max(min(int(jns[i]), n), 0) >> decShift
			jf := (max(min(int(jfs[i]), n), 0) + 1<<decShift - 1) >> decShift
			near := archsimd.LoadFloat32x16((*[Lanes]float32)(prof[(st+jn)*Lanes : (st+jn+1)*Lanes]))
			far := archsimd.LoadFloat32x16((*[Lanes]float32)(prof[(st+jf)*Lanes : (st+jf+1)*Lanes]))
			hid &= near.Greater(sHi).ToBits()
			vis &= far.LessEqual(sLo).ToBits()
		}
	}
	j.hid, j.vis = hid, vis
}

// flipPerm[f] maps lane (x,y) to its entry of a row-major 4×4 window of
// the offset table: column 3−x when f&1, row 3−y when f&2 (cellJob).
var flipPerm = func() (p [4][Lanes]uint32) {
	for f := range 4 {
		for b := range Lanes {
			x, y := b%BlockSide, b/BlockSide
			if f&1 != 0 {
				x = BlockSide - 1 - x
			}
			if f&2 != 0 {
				y = BlockSide - 1 - y
			}
			p[f][b] = uint32(y*BlockSide + x)
		}
	}
	return p
}()

// window loads the 4×4 window of t at win (row stride stride) for the
// lanes, permuted by perm.
func window(t []float32, win, stride int, perm archsimd.Uint32x16) archsimd.Float32x16 {
	return rows4(t, win, stride).Permute(perm)
}

// laneIndex is 0…15, lane b's element of a 16-float profile row.
var laneIndex = [Lanes]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// cellLanes16 is cellLanes in AVX-512: the geometry, the bracketing
// sectors and the slots lane-parallel; the two profile reads per lane,
// whose rows differ from lane to lane, gathered one by one.
func cellLanes16(bw *BlockWorker, j *cellJob) {
	for k := range 4 {
		if j.cells&(1<<k) != 0 {
			j.vis[k] = cellLanes16One(bw, j, k)
		}
	}
}

// cellLanes16One is cell k of a cellJob. (Hoisting the loads the four
// cells share out of it, into one loop, made the kernel 15% slower: the
// vectors spill.)
func cellLanes16One(bw *BlockWorker, j *cellJob, k int) uint16 {
	m := bw.m
	S := archsimd.BroadcastInt32x16(int32(m.p.Sectors)).ConvertToFloat32()
	halfS := S.Mul(bcast(0.5))
	stride := m.rc + 1
	perm := archsimd.LoadUint32x16(&flipPerm[j.flip])
	q := window(m.offU, j.win[k], stride, perm)
	d := window(m.offD, j.win[k], stride, perm)
	inv := window(m.offInv, j.win[k], stride, perm)
	var u archsimd.Float32x16
	switch j.quad {
	case 0:
		u = q
	case 1:
		u = halfS.Sub(q)
	case 2:
		u = halfS.Add(q)
	default:
		u = S.Sub(q)
	}
	zz := bcastp(&j.z[k]).Add(archsimd.LoadFloat32x16(&bw.tau))
	if m.offDrp != nil {
		zz = zz.Sub(window(m.offDrp, j.win[k], stride, perm))
	}
	lhs := zz.Mul(inv)
	k0 := u.Add(S).Sub(bcast(0.5)).ConvertToInt32()
	t0, t1 := &bw.t0, &bw.t1 // the brackets' profile values, as bits (scratch: see boundLanes16)
	prof := floatBits(bw.prof)
	// The sector tables, for sectors base … base+31: the lanes' two
	// brackets lie there unless the cell is near the block.
	base := max(int(k0.GetLo().GetLo().GetElem(0))-15, 0)
	k0i := k0.Sub(archsimd.BroadcastInt32x16(int32(base))).AsUint32x16()
	if k0i.Less(archsimd.BroadcastUint32x16(31)).ToBits() == 0xffff {
		k1i := k0i.Add(archsimd.BroadcastUint32x16(uint32(m.k1)))
		invLo := archsimd.LoadFloat32x16((*[Lanes]float32)(m.secInvX[base : base+Lanes]))
		invHi := archsimd.LoadFloat32x16((*[Lanes]float32)(m.secInvX[base+Lanes : base+2*Lanes]))
		nLo := archsimd.LoadInt32x16((*[Lanes]int32)(bw.n[base : base+Lanes]))
		nHi := archsimd.LoadInt32x16((*[Lanes]int32)(bw.n[base+Lanes : base+2*Lanes]))
		sLo := archsimd.LoadInt32x16((*[Lanes]int32)(bw.start[base : base+Lanes]))
		sHi := archsimd.LoadInt32x16((*[Lanes]int32)(bw.start[base+Lanes : base+2*Lanes]))
		half := bcast(marginSteps)
		zero := archsimd.BroadcastInt32x16(0)
		lane := archsimd.LoadInt32x16(&laneIndex)
		j0 := d.Mul(invLo.ConcatPermute(invHi, k0i)).Sub(half).ConvertToInt32().Min(nLo.ConcatPermute(nHi, k0i)).Max(zero)
		i0, i1 := &bw.i0, &bw.i1
		sLo.ConcatPermute(sHi, k0i).Add(j0).ShiftAllLeft(4).Add(lane).Store(i0)
		// No gather in archsimd; an AVX-512 gather through assembly was
		// slower than these loads (BenchmarkCells: 345 against 280 ns per
		// quad).
		// The loads as integers, not through legacy SSE registers (bcast).
		if m.k1 == 0 { // both brackets are sector k0
			for b := range Lanes {
				t0[b] = prof[i0[b]]
			}
			return lhs.GreaterEqual(archsimd.LoadUint32x16(t0).AsFloat32x16()).And(d.LessEqual(bcastp(&m.lim))).ToBits()
		}
		j1 := d.Mul(invLo.ConcatPermute(invHi, k1i)).Sub(half).ConvertToInt32().Min(nLo.ConcatPermute(nHi, k1i)).Max(zero)
		sLo.ConcatPermute(sHi, k1i).Add(j1).ShiftAllLeft(4).Add(lane).Store(i1)
		for b := range Lanes {
			t0[b], t1[b] = prof[i0[b]], prof[i1[b]]
		}
	} else {
		// Lanes whose brackets spread wider (cells near the block): each
		// lane's sector tables fetched one by one as integers, then the
		// same vector arithmetic (scalar float32 code here would run
		// legacy SSE instructions on live 512-bit state).
		ks, g := &bw.jn, &bw.gather // jn: boundLanes16's scratch, free between its calls
		k0.Store(ks)
		secBits := floatBits(m.secInvX)
		for b := range Lanes {
			k := int(ks[b])
			g.inv0[b], g.inv1[b] = secBits[k], secBits[k+m.k1]
			g.n0[b], g.n1[b] = bw.n[k], bw.n[k+m.k1]
			g.s0[b], g.s1[b] = bw.start[k], bw.start[k+m.k1]
		}
		half := bcast(marginSteps)
		zero := archsimd.BroadcastInt32x16(0)
		lane := archsimd.LoadInt32x16(&laneIndex)
		j0 := d.Mul(archsimd.LoadUint32x16(&g.inv0).AsFloat32x16()).Sub(half).ConvertToInt32().Min(archsimd.LoadInt32x16(&g.n0)).Max(zero)
		j1 := d.Mul(archsimd.LoadUint32x16(&g.inv1).AsFloat32x16()).Sub(half).ConvertToInt32().Min(archsimd.LoadInt32x16(&g.n1)).Max(zero)
		i0, i1 := &bw.i0, &bw.i1
		archsimd.LoadInt32x16(&g.s0).Add(j0).ShiftAllLeft(4).Add(lane).Store(i0)
		archsimd.LoadInt32x16(&g.s1).Add(j1).ShiftAllLeft(4).Add(lane).Store(i1)
		for b := range Lanes {
			t0[b], t1[b] = prof[i0[b]], prof[i1[b]]
		}
	}
	// Profile values are never NaN, and ±0 compare equal: the vector min
	// decides as Go's min does.
	thr := archsimd.LoadUint32x16(t0).AsFloat32x16().Min(archsimd.LoadUint32x16(t1).AsFloat32x16())
	vis := lhs.GreaterEqual(thr).And(d.LessEqual(bcastp(&m.lim)))
	return vis.ToBits()
}

// consLanes16 is consLanes in AVX-512: each segment's patch corners for
// the 16 lanes from five 8-float rows of the padded elevations, their
// slack from the padded patch table, segLow's operations in its order, and
// the least value per lane by compare-and-select in the segments' order.
// Like consLanes, it first tries the patches' highest corners, and returns
// when they show that no live lane can rise; otherwise it evaluates every
// lane (the screened ones cannot rise, so the result is the same). Terrains one cell wide or
// high, whose patches clamp their corners, take consLanes.
func consLanes16(bw *BlockWorker, j *consJob) {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	if W < 2 || H < 2 {
		consLanes(bw, j)
		return
	}
	pw, ph := W-1, H-1
	elev, ew := bw.elev, bw.padW
	g2, gw := m.consG2, m.consGW
	pick0 := archsimd.LoadUint32x16(&rowPick[0])
	pick1 := archsimd.LoadUint32x16(&rowPick[1])
	bulge := bcastp(&j.bulge)
	pad := bcastp(&m.consPad)
	zero := bcast(0)
	minus1 := bcast(-1)
	drop, inv := bcastp(&j.drop), bcastp(&j.inv)
	eye, cur := archsimd.LoadFloat32x16(&bw.eye), archsimd.LoadFloat32x16(&j.cur)
	// The screen: lanes for which some patch's highest corner gives a
	// slope of at most cur cannot rise (chordLow).
	top := m.consTop
	pass := uint16(0)
	for i := 0; i < len(j.segs); i += int(j.segs[i].grp) { // a patch at a time
		s := &j.segs[i]
		qx, qy := j.col+int(s.px), j.row+int(s.py)
		hull := lanesIn(qx, qy, pw, ph)
		if hull == 0 {
			continue
		}
		zb := rows4(top, m.consIndex(qx, qy), gw)
		pass |= hull & zb.Sub(drop).Sub(eye).Mul(inv).LessEqual(cur).ToBits()
		if j.live&^pass == 0 {
			return
		}
	}
	need := j.live &^ pass // the lanes the screen left
	z := bcast(float32(math.Inf(1)))
	inf := z
	in := uint16(0)
	for i := 0; i < len(j.segs); {
		s0 := &j.segs[i]
		n := int(s0.grp)
		qx, qy := j.col+int(s0.px), j.row+int(s0.py) // lane 0's patch
		hull := lanesIn(qx, qy, pw, ph)
		if hull == 0 {
			i += n
			continue
		}
		in |= hull
		a := (qy+blockPad)*ew + qx + blockPad
		r0 := archsimd.LoadFloat32x8((*[8]float32)(elev[a : a+8]))
		r1 := archsimd.LoadFloat32x8((*[8]float32)(elev[a+ew : a+ew+8]))
		r2 := archsimd.LoadFloat32x8((*[8]float32)(elev[a+2*ew : a+2*ew+8]))
		r3 := archsimd.LoadFloat32x8((*[8]float32)(elev[a+3*ew : a+3*ew+8]))
		r4 := archsimd.LoadFloat32x8((*[8]float32)(elev[a+4*ew : a+4*ew+8]))
		var v01, v23, v12, v34 archsimd.Float32x16
		v01, v23 = v01.SetLo(r0).SetHi(r1), v23.SetLo(r2).SetHi(r3)
		v12, v34 = v12.SetLo(r1).SetHi(r2), v34.SetLo(r3).SetHi(r4)
		z00, z10 := v01.ConcatPermute(v23, pick0), v01.ConcatPermute(v23, pick1)
		z01, z11 := v12.ConcatPermute(v34, pick0), v12.ConcatPermute(v34, pick1)
		bu, bv := z10.Sub(z00), z01.Sub(z00)
		cuv := z00.Sub(z10).Sub(z01).Add(z11)
		f := func(u, v archsimd.Float32x16) archsimd.Float32x16 {
			return z00.Add(bu.Mul(u)).Add(bv.Mul(v)).Add(cuv.Mul(u).Mul(v))
		}
		// The patch's segments' least value: the slack below is the same
		// for all of them, and rounding is monotone, so subtracting it
		// from the least gives the least of the differences.
		lo := inf
		for g := i; g < i+n; g++ {
			s := &j.segs[g]
			ua, va := bcastp(&s.ua), bcastp(&s.va)
			fa := f(ua, va)
			lo = fa.Merge(lo, fa.Less(lo))
			if s.pt == ptPoint {
				continue
			}
			if s.pt == ptRect {
				ub, vb := bcastp(&s.ub), bcastp(&s.vb)
				for _, fc := range [3]archsimd.Float32x16{f(ub, va), f(ub, vb), f(ua, vb)} {
					lo = fc.Merge(lo, fc.Less(lo))
				}
				continue
			}
			ub, vb := bcastp(&s.ub), bcastp(&s.vb)
			du, dv := ub.Sub(ua), vb.Sub(va) // segLow's, lane by lane
			fb := f(ub, vb)
			lo = fb.Merge(lo, fb.Less(lo))
			c := cuv.Mul(du.Mul(dv))
			if up := c.Greater(zero); up.ToBits() != 0 {
				w := ua.Mul(dv).Add(va.Mul(du))
				b := bu.Mul(du).Add(bv.Mul(dv)).Add(cuv.Mul(w))
				sm := b.Div(c.Add(c))
				fm := f(ua.Sub(sm.Mul(du)), va.Sub(sm.Mul(dv)))
				lo = fm.Merge(lo, fm.Less(lo).And(up).And(sm.Greater(minus1)).And(sm.Less(zero)))
			}
		}
		i += n
		zs := lo.Sub(rows4(g2, m.consIndex(qx, qy), gw).Mul(bulge)).Sub(pad)
		z = zs.Merge(z, zs.Less(z).And(archsimd.Mask32x16FromBits(hull)))
		// z only falls with more patches: once no lane left to decide
		// can rise, none will.
		if need&^(in&z.Sub(drop).Sub(eye).Mul(inv).LessEqual(cur).ToBits()) == 0 {
			return
		}
	}
	sl := z.Sub(drop).Sub(eye).Mul(inv)
	cur = sl.Merge(cur, sl.Greater(cur).And(archsimd.Mask32x16FromBits(j.live&in)))
	cur.Store(&j.cur)
}
