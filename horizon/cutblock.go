package horizon

import (
	"math"
	"math/bits"
)

// cutLanes is the block cut walk's per-lane state and the current cut's
// constants (BlockWorker.cutWalk), kept on the worker so that the walk
// allocates nothing; the kernels (cutLanesGo and its assembly twin) read
// and update it. Lane b's arrays hold entry b.
type cutLanes struct {
	F     [Lanes]float64 // running maximum of the thresholds, metres per major cell
	P     [Lanes]float32 // F as a slope per metre, rounded down (cutSlope)
	ze    [Lanes]float32 // eye plus consPad, metres
	X0    [Lanes]int32   // the lane's observer's major coordinate · minLen: its line of z
	minor [Lanes]int32   // the lane's observer's minor coordinate, cells
	major [Lanes]int32   // and major
	last  [Lanes]int32   // the lane's last cut (cutLast of its steps)
	// The cut: rp = 1/(c + ½) and rm = 1/(c − ½) (Model.cutRecip), the
	// sector's aMin and aMax (cutSector), off = dir·c·minLen the cut's
	// line in z relative to the observers', the interval's whole and
	// fractional ends (cutStep), lim = minLen − 1, and ev, the lanes to
	// take it.
	rp, rm, aMin, aMax float64
	off, loI, hiI, lim int32
	loF, hiF           float32
	ev                 uint16
	// Where no lane's interval, nor the sample after it, leaves the grid
	// and the four lines lie inside it (fast), the assembly loads each
	// line's samples for its four lanes at once from base, lane 0's first
	// sample (row-major sectors' lanes as loaded, column-major's
	// transposed: colMaj).
	fast, colMaj bool
	base         int32
	top          []float32 // per chunk of 2^chunkShift cuts: the highest tile any lane's later cuts cross
}

// cutWalk fills sector k's profile rows pos … pos+nmax of every lane with
// the lane's cut profile, the bits Model.cutProfile gives the lane's
// observer alone (region versions 4 and 5, cut.go). The sixteen lanes take the
// cuts in step: the cut's interval is read once from the table for all
// of them, and the screens bound the block as a whole (the union of the
// lanes' intervals), each lane comparing the bound against its own eye
// and running maximum. Every screen only skips cuts that cannot raise a
// lane's maximum, so the profiles are those of cutProfile, whatever
// screens run. A lane stops at its own line's last cut and keeps its
// maximum in later rows; lanes without data read −Inf.
func (bw *BlockWorker) cutWalk(k, pos, nmax int) {
	m := bw.m
	cs := &m.cut[k]
	st := &bw.cutL
	colMaj := m.secColMaj[k]
	major0, minor0, minLen := bw.col, bw.row, m.t.Height
	z := m.occT
	if !colMaj {
		major0, minor0, minLen = bw.row, bw.col, m.t.Width
		z = m.occ
	}
	dir := 1
	if m.secMajor[k] < 0 {
		dir = -1
	}
	tab := m.cutTab[m.cutOff[k]:m.cutOff[k+1]]
	negInf := math.Inf(-1)
	live := uint16(0) // lanes with cuts left that may raise their maximum
	lastAll := 1
	eyeMin := float32(math.Inf(1))
	for b := range Lanes {
		bx, by := int32(b%BlockSide), int32(b/BlockSide)
		if !colMaj {
			bx, by = by, bx
		}
		st.major[b], st.minor[b] = int32(major0)+bx, int32(minor0)+by
		st.X0[b] = st.major[b] * int32(minLen)
		st.F[b], st.P[b], st.last[b] = negInf, float32(negInf), 1
		if bw.active&(1<<b) != 0 {
			st.last[b] = int32(cutLast(int(bw.ext[b]), cs.q))
			st.ze[b] = bw.eye[b] + m.consPad
			if st.last[b] >= 2 {
				live |= 1 << b
				lastAll = max(lastAll, int(st.last[b]))
				eyeMin = min(eyeMin, bw.eye[b])
			}
		}
	}
	bw.cutTops(k, major0, minor0, dir, lastAll)
	st.aMin, st.aMax, st.lim, st.colMaj = cs.aMin, cs.aMax, int32(minLen-1), colMaj
	majLen := len(z) / minLen
	// Every lane's cuts lie on lines of z (cutProfile's walk assumes it;
	// the assembly, which reads without bounds checks, needs it).
	kern := bw.k.cut
	for l := live; l != 0; l &= l - 1 {
		b := bits.TrailingZeros16(l)
		if X := int(st.major[b]) + dir*int(st.last[b]); X < 0 || X >= majLen {
			kern = nil
		}
	}
	if kern == nil {
		kern = cutLanesGo
	}
	row := bw.prof[pos*Lanes : (pos+1)*Lanes]
	for b := range row {
		row[b] = float32(negInf)
	}
	nextEnd := lastAll // the least last cut of a live lane
	for l := live; l != 0; l &= l - 1 {
		nextEnd = min(nextEnd, int(st.last[bits.TrailingZeros16(l)]))
	}
	recip := m.cutRecip
	var gskip uint16 // lanes that skip the cuts up to gend (the group screen)
	gend := 0
	i := 1 // the last cut taken
	j := 1
	for ; j <= nmax && live != 0; j++ {
		last := min(cutLast(j, cs.q), lastAll)
		for ; i < last && live != 0; i++ {
			c := i + 1
			if c > nextEnd {
				// Lanes whose line has no cut c leave.
				nextEnd = lastAll
				for l := live; l != 0; l &= l - 1 {
					b := bits.TrailingZeros16(l)
					if int(st.last[b]) < c {
						live &^= 1 << b
					} else {
						nextEnd = min(nextEnd, int(st.last[b]))
					}
				}
			}
			if c&(cutGroup-1) == 0 {
				gskip, gend = bw.cutGroupSkip(k, major0, minor0, dir, c, min(c+cutGroup-1, lastAll), live, tab), c+cutGroup-1
			}
			ev := live
			if c <= gend {
				ev &^= gskip
			}
			if ev != 0 {
				s := tab[c]
				st.ev, st.off, st.loI, st.hiI, st.loF, st.hiF = ev, int32(dir*c*minLen), s.loI, s.hiI, s.loF, s.hiF
				st.rp, st.rm = recip[c], recip[c-1]
				X := major0 + dir*c
				st.fast = X >= 0 && X+BlockSide-1 < majLen && minor0+int(s.loI) >= 0 && minor0+BlockSide-1+int(s.hiI) < minLen-1
				st.base = int32(X*minLen + minor0 + int(s.loI))
				kern(st, z)
			}
			if c&(1<<chunkShift-1) == 0 {
				// Lanes that no later cut can raise stop: cutSuffix's bound
				// over the block's tiles, from the lowest eye of the block
				// and its last cut, which bounds every lane's.
				d := float64(st.top[c>>chunkShift]) - float64(eyeMin)
				var s float32
				switch {
				case math.IsInf(d, -1):
					s = float32(negInf)
				case d >= 0:
					s = float32(d/(float64(c+1)+0.5)) * (1 + 1e-6)
				default:
					s = float32(d/(float64(lastAll)-0.5)) * (1 - 1e-6)
				}
				for l := live; l != 0; l &= l - 1 {
					if b := bits.TrailingZeros16(l); st.F[b] >= float64(s) {
						live &^= 1 << b
					}
				}
			}
		}
		*(*[Lanes]float32)(bw.prof[(pos+j)*Lanes:]) = st.P
	}
	// Every lane's maximum is final: the rest of the rows repeat it.
	for ; j <= nmax; j++ {
		*(*[Lanes]float32)(bw.prof[(pos+j)*Lanes:]) = st.P
	}
}

// cutGroupSkip returns the lanes of live whose cuts c0 … c1 of sector k
// cannot raise their maximum: cutGroupTop's bound over the union of the
// block's intervals, the pyramid's quads of side cutGroup they touch.
func (bw *BlockWorker) cutGroupSkip(k, major0, minor0, dir, c0, c1 int, live uint16, tab []cutStep) uint16 {
	const l = 3 // log2(cutGroup)
	m := bw.m
	if len(m.zmax) <= l || c1 < c0 {
		return 0
	}
	st := &bw.cutL
	minLen, majLen := m.t.Height, m.t.Width
	if !m.secColMaj[k] {
		minLen, majLen = m.t.Width, m.t.Height
	}
	a0, a1 := major0+dir*c0, major0+BlockSide-1+dir*c1
	if dir < 0 {
		a0, a1 = major0-c1, major0+BlockSide-1-c0
	}
	a0, a1 = max(a0, 0), min(a1, majLen-1)
	b0 := minor0 + int(min(tab[c0].loI, tab[c1].loI))
	b1 := minor0 + BlockSide - 1 + int(max(tab[c0].hiI, tab[c1].hiI)) + 1
	b0, b1 = max(b0, 0), min(b1, minLen-1)
	top := m.cutTileTop(m.secColMaj[k], l, a0, a1, b0, b1)
	var skip uint16
	for lv := live; lv != 0; lv &= lv - 1 {
		b := bits.TrailingZeros16(lv)
		d := float64(top) - float64(st.ze[b])
		f := d * m.cutRecip[c0]
		if d < 0 {
			f = d * m.cutRecip[c1-1]
		}
		if f <= st.F[b] {
			skip |= 1 << b
		}
	}
	return skip
}

// cutTops fills bw.cutL.top, for the chunks of 2^chunkShift cuts up to
// lastAll of sector k, with the highest elevation (Model.zmax) of the
// tiles that any lane's cuts after the chunk's start cross: cutSuffix's
// tiles over the union of the block's lanes (Model.cutChunkTop).
func (bw *BlockWorker) cutTops(k, major0, minor0, dir, lastAll int) {
	st := &bw.cutL
	chunks := lastAll>>chunkShift + 1
	if cap(st.top) < chunks+1 {
		st.top = make([]float32, chunks+1)
	}
	st.top = st.top[:chunks+1]
	zs := float32(math.Inf(-1))
	for c := chunks - 1; c >= 0; c-- {
		i0, i1 := max(c<<chunkShift+1, 2), min((c+1)<<chunkShift, lastAll)
		if i0 <= i1 {
			zs = max(zs, bw.m.cutChunkTop(k, major0, minor0, BlockSide-1, dir, i0, i1))
		}
		st.top[c] = zs
	}
	st.top[chunks] = float32(math.Inf(-1))
}

// cutLanesGo takes the cut st describes for the lanes st.ev: each lane's
// interval on its line of z, clipped to the grid's hull, its least value
// (cutMin), the threshold (cutF) and, where it raises the lane's maximum,
// the new maximum and slope (cutSlope). The portable kernel; the amd64
// builds' twin is cutAVX512 (cut_amd64.s).
func cutLanesGo(st *cutLanes, z []float32) {
	minLen := int(st.lim) + 1
	for ev := st.ev; ev != 0; ev &= ev - 1 {
		b := bits.TrailingZeros16(ev)
		a, fa := int(st.minor[b]+st.loI), st.loF
		e, fe := int(st.minor[b]+st.hiI), st.hiF
		if a < 0 {
			a, fa = 0, 0
		}
		if e >= minLen-1 {
			e, fe = minLen-1, 0
		}
		if a > e || a == e && fa > fe {
			continue
		}
		// cutMin, inline: the ends interpolated, the samples between.
		o := int(st.X0[b]+st.off) + a
		col := z[o : o+e-a+1+min(1, minLen-1-e)]
		g := col[0]
		if fa != 0 {
			g += float32(fa * (col[1] - col[0]))
		}
		for _, v := range col[1 : e-a+1] {
			g = min(g, v)
		}
		if fe != 0 {
			n := e - a
			g = min(g, col[n]+float32(fe*(col[n+1]-col[n])))
		}
		d := float64(g) - float64(st.ze[b])
		f := d * st.rp
		if d < 0 {
			f = d * st.rm
		}
		if f > st.F[b] {
			s := f * st.aMin
			if f < 0 {
				s = f * st.aMax
			}
			st.F[b], st.P[b] = f, cutSlopeOf(s)
		}
	}
}
