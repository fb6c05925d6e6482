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
	// The rows: sector k's Model.cutRow, its profile from row 0 (prof,
	// Lanes floats a row) and jEnd = nmax + 1, the first row past it.
	rows []int32
	prof []float32
	jEnd int32
}

// cutWalk fills sector k's profile rows pos … pos+nmax of every lane with
// the lane's cut profile, the bits Model.cutProfile gives the lane's
// observer alone (region versions 4 and 5, cut.go). The sixteen lanes take the
// cuts in step: the cut's interval is read once from the table for all
// of them, in runs of up to 2^chunkShift cuts (cutRun). The one screen,
// the early stop after each chunk, bounds the block as a whole (the union
// of the lanes' intervals), each lane comparing the bound against its own
// running maximum; it only stops lanes that no later cut can raise, so
// the profiles are those of cutProfile. (cutProfile also screens groups
// of cutGroup cuts; in the block the cuts cost less than that screen.) A
// lane stops at its own line's last cut and keeps its maximum in later
// rows; lanes without data read −Inf.
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
	lastRow := min(lastAll, cutLast(nmax, cs.q)) // the last cut any row holds
	// Row j holds the lanes' P after the cuts up to cutLast(j): the rows
	// m.cutRow gives cut c are written after it (cutRows), the rows before
	// the first cut hold no cut, and those after the walk's last cut its P.
	st.rows = m.cutRow[int(m.cutOff[k])+k : int(m.cutOff[k+1])+k+1]
	st.prof, st.jEnd = bw.prof[pos*Lanes:(pos+nmax+1)*Lanes], int32(nmax+1)
	first := nmax + 1
	if len(st.rows) > 2 {
		first = min(int(st.rows[2]), first)
	}
	for j := range first {
		*(*[Lanes]float32)(st.prof[j*Lanes:]) = st.P
	}
	nextEnd := lastAll // the least last cut of a live lane
	for l := live; l != 0; l &= l - 1 {
		nextEnd = min(nextEnd, int(st.last[bits.TrailingZeros16(l)]))
	}
	// The cuts in runs with no decision between: a run ends at a chunk's
	// end (its early stop after) or at a lane's last cut (the lane leaves).
	c := 2
	for c <= lastRow && live != 0 {
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
			if live == 0 {
				break
			}
		}
		const chunk = 1<<chunkShift - 1
		e := min(lastRow, nextEnd, (c+chunk)&^chunk)
		bw.cutRun(st, z, tab, kern, c, e, live, major0, minor0, dir, minLen, majLen)
		if e&chunk == 0 {
			// Lanes that no later cut can raise stop: cutSuffix's bound
			// over the block's tiles, from the lowest eye of the block
			// and its last cut, which bounds every lane's.
			d := float64(st.top[e>>chunkShift]) - float64(eyeMin)
			var s float32
			switch {
			case math.IsInf(d, -1):
				s = float32(negInf)
			case d >= 0:
				s = float32(d/(float64(e+1)+0.5)) * (1 + 1e-6)
			default:
				s = float32(d/(float64(lastAll)-0.5)) * (1 - 1e-6)
			}
			for l := live; l != 0; l &= l - 1 {
				if b := bits.TrailingZeros16(l); st.F[b] >= float64(s) {
					live &^= 1 << b
				}
			}
		}
		c = e + 1
	}
	// Every lane's maximum is final: the rest of the rows repeat it.
	v := st.P
	for j := max(int(st.rows[c]), first); j <= nmax; j++ {
		*(*[Lanes]float32)(st.prof[j*Lanes:]) = v
	}
}

// cutRows writes st.P to the rows that hold cuts c0 … c1 as their last
// (Model.cutRow, up to st.jEnd − 1).
func (st *cutLanes) cutRows(c0, c1 int) {
	v := st.P
	for j := int(st.rows[c0]); j < min(int(st.rows[c1+1]), int(st.jEnd)); j++ {
		*(*[Lanes]float32)(st.prof[j*Lanes:]) = v
	}
}

// cutRun takes cuts c0 … c1 of the walk (cutWalk) for the lanes ev,
// writing the rows that end at each (cutRows): in one call of the kernel
// set's cutRun where every cut is on the loads-of-four path
// (cutLanes.fast), else one cut at a time by cut.
func (bw *BlockWorker) cutRun(st *cutLanes, z []float32, tab []cutStep, cut func(*cutLanes, []float32), c0, c1 int, ev uint16, major0, minor0, dir, minLen, majLen int) {
	m := bw.m
	st.ev = ev
	// X, loI and hiI are monotone in c: the run's ends bound them.
	x0, x1 := major0+dir*c0, major0+dir*c1
	lo := minor0 + int(min(tab[c0].loI, tab[c1].loI))
	hi := minor0 + BlockSide - 1 + int(max(tab[c0].hiI, tab[c1].hiI))
	if run := bw.k.cutRun; run != nil && min(x0, x1) >= 0 && max(x0, x1)+BlockSide-1 < majLen && lo >= 0 && hi < minLen-1 &&
		run(st, z, tab, m.cutRecip, c0, c1, x0*minLen+minor0, dir*minLen) {
		return
	}
	for c := c0; c <= c1; c++ {
		s := tab[c]
		st.off, st.loI, st.hiI, st.loF, st.hiF = int32(dir*c*minLen), s.loI, s.hiI, s.loF, s.hiF
		st.rp, st.rm = m.cutRecip[c], m.cutRecip[c-1]
		X := major0 + dir*c
		st.fast = X >= 0 && X+BlockSide-1 < majLen && minor0+int(s.loI) >= 0 && minor0+BlockSide-1+int(s.hiI) < minLen-1
		st.base = int32(X*minLen + minor0 + int(s.loI))
		cut(st, z)
		st.cutRows(c, c)
	}
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
