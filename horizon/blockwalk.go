package horizon

import "math"

// blockPad is the border, in cells, of the padded elevations the block walk
// reads: a lane past its own line's end keeps reading (masked) beside the
// lanes still inside, at most a block side plus the interpolation's second
// cell away, and the vector walk loads whole rows of 8 and 16 floats.
const blockPad = 16

// padded returns the surface the lines walk (Model.occ) with a border of blockPad cells
// (zero metres), row-major over Width+2·blockPad columns, built once.
func (m *Model) padded() ([]float32, int) {
	m.padOnce.Do(func() {
		pw := m.t.Width + 2*blockPad
		m.pad = make([]float32, pw*(m.t.Height+2*blockPad))
		for r := range m.t.Height {
			copy(m.pad[(r+blockPad)*pw+blockPad:], m.occ[r*m.t.Width:(r+1)*m.t.Width])
		}
		m.padW = pw
	})
	return m.pad, m.padW
}

// walk fills every lane's profiles of all sectors for the current block,
// by the model's rule (lineModel.walkBlock), after the band's height per
// chunk of steps that any lane's line crosses (bw.stop).
//
// All lanes walk the same number of steps n[k] of sector k: a lane whose
// line leaves the grid earlier keeps its running maximum (its later samples
// are masked), which is what Worker's slot clamp reads there; a lane whose
// own early stop came earlier keeps computing the same running maximum (by
// the stop's bound no later sample raises it). So every slot a cell reads
// holds the value Worker.walk gives it.
func (bw *BlockWorker) walk() {
	m := bw.m
	W := m.t.Width
	if bw.band.tx != bw.col>>bandShift || bw.band.ty != bw.row>>bandShift {
		bw.band.tx, bw.band.ty = bw.col>>bandShift, bw.row>>bandShift
		bw.band.build(m)
	}
	S := m.p.Sectors
	negInf := float32(math.Inf(-1))
	pos, dpos := 0, 0
	tl := min(bandShift, len(m.zmax)-1)
	for k := range S {
		nmax := 0
		for b := range Lanes {
			bw.ext[b] = 0
			if bw.active&(1<<b) != 0 {
				bw.ext[b] = int32(m.steps(k, bw.col+b%BlockSide, bw.row+b/BlockSide))
				nmax = max(nmax, int(bw.ext[b]))
			}
		}
		need := (pos + nmax + 1) * Lanes
		if need > len(bw.prof) {
			bw.prof = append(bw.prof, make([]float32, need-len(bw.prof)+need/4)...)
		}
		bw.start[k] = int32(pos)
		row := bw.prof[pos*Lanes : (pos+1)*Lanes]
		for b := range row {
			row[b] = negInf
		}
		// The band's highest elevation per chunk of 2^stepShift steps:
		// over the tiles that any lane's steps of the chunk cross.
		colMaj := m.secColMaj[k]
		dir := 1
		if m.secMajor[k] < 0 {
			dir = -1
		}
		major, majLen := bw.col, W
		if !colMaj {
			major, majLen = bw.row, m.t.Height
		}
		lo, hi := major, min(major+BlockSide, majLen)-1 // the lanes' major coordinates
		chunks := (nmax + 1<<stepShift - 1) >> stepShift
		bt := bw.band.tile[k*bw.band.stride : (k+1)*bw.band.stride]
		for c := range chunks {
			i0, i1 := c<<stepShift+1, (c+1)<<stepShift // the chunk's steps
			a, b := lo+dir*i0, hi+dir*i1
			if dir < 0 {
				a, b = lo-i1, hi-i0
			}
			a, b = max(a, 0), min(b, majLen-1)
			z := negInf // past the grid: nothing left to raise the maxima
			for p := a >> tl; p <= b>>tl && a <= b; p++ {
				z = max(z, bt[p])
			}
			bw.stop[c] = z
		}
		n := m.lines.walkBlock(bw, k, pos, nmax, chunks)
		bw.decimate(k, pos, n, &dpos)
		pos += n + 1
	}
	for k := S; k < len(bw.start); k++ {
		bw.start[k], bw.n[k], bw.decStart[k] = bw.start[k-S], bw.n[k-S], bw.decStart[k-S]
	}
}

// decimate writes sector k's decimated rows (dec) from its n+1 profile
// rows at pos, from row *dpos on, and advances *dpos.
func (bw *BlockWorker) decimate(k, pos, n int, dpos *int) {
	last := (n + 1<<decShift - 1) >> decShift
	bw.decStart[k] = int32(*dpos)
	if need := (*dpos + last + 1) * Lanes; need > len(bw.dec) {
		bw.dec = append(bw.dec, make([]float32, need-len(bw.dec)+need/4)...)
	}
	for i := range last + 1 {
		src := pos + min(i<<decShift, n)
		copy(bw.dec[(*dpos+i)*Lanes:(*dpos+i+1)*Lanes], bw.prof[src*Lanes:(src+1)*Lanes])
	}
	*dpos += last + 1
}

// walkConservative fills sector k's rows pos … pos+n of every lane with
// the lane's conservative profile, as Model.consProfile computes it for the
// lane's observer alone: the lanes' chords at a step are lane 0's
// translated by whole cells, so one traversal of the patches (consStep)
// serves all sixteen, and the kernel (bw.k.cons) evaluates each lane's
// own patches. A lane whose line leaves the grid, or whose early stop
// comes, keeps its running maximum in the later rows, as walk does; lanes
// without data read −Inf. The band's highest elevation per chunk of
// 2^stepShift steps (stop) bounds every step of the chunk: a lane that
// cannot rise over a chunk skips it, and one that cannot rise over the
// rest of the line (their suffix maximum) stops.
func (bw *BlockWorker) walkConservative(k, pos, n, chunks int) {
	m := bw.m
	m.segTable()
	negInf := float32(math.Inf(-1))
	// The band's highest elevation over the rest of the line from chunk c.
	if cap(bw.consSuf) < chunks+1 {
		bw.consSuf = make([]float32, chunks+1)
	}
	top := bw.consSuf[:chunks+1]
	top[chunks] = negInf
	for c := chunks - 1; c >= 0; c-- {
		top[c] = max(top[c+1], bw.stop[c])
	}
	j := &bw.consJ
	j.col, j.row = bw.col, bw.row
	todo := uint16(0) // lanes still walking
	e := m.consShift[k]
	for b := range Lanes {
		j.cur[b] = negInf
		if bw.active&(1<<b) != 0 && e < int(bw.ext[b]) {
			todo |= 1 << b
		}
	}
	for r := 0; r <= min(e, n); r++ {
		*(*[Lanes]float32)(bw.prof[(pos+r)*Lanes:]) = j.cur
	}
	last := min(e, n)     // the last row written
	leave := func() int { // the step after which a walking lane next leaves the grid
		l := n
		for b := range Lanes {
			if todo&(1<<b) != 0 {
				l = min(l, int(bw.ext[b])-e)
			}
		}
		return l
	}
	next := leave()
	var skip uint16 // lanes that cannot rise in the current chunk
	first := 1
	if m.consFirst != nil {
		first = m.consFirst[k]
	}
	for i := 1; i+e <= n && todo != 0; i++ {
		if i < first { // an arc the region model does not count
			*(*[Lanes]float32)(bw.prof[(pos+i+e)*Lanes:]) = j.cur
			last = i + e
			continue
		}
		if i > next {
			for b := range Lanes {
				if i+e > int(bw.ext[b]) {
					todo &^= 1 << b // the lane's line has left the grid
				}
			}
			if next = leave(); todo == 0 {
				break
			}
		}
		if c := (i - 1) >> stepShift; (i-1)&(1<<stepShift-1) == 0 {
			skip = 0
			// The chunk's lower bounds lie at most zc high, the band's
			// height (padStop; a lower bound over the arc never exceeds
			// the surface at the arc's midline point, at most consStopPad
			// above the samples the band bounds). A lane whose slope
			// bound over them is at most its maximum skips the chunk.
			// Rounding is monotone, so every step's slope is at most the
			// bound. (A tighter bound, the highest cell over the block's
			// chords from the pyramid's 4×4 quads, skipped 14% more steps
			// on the benchmark windows but cost as much as it saved.)
			end := min((c+1)<<stepShift, n-e)
			near, far := float32(1/m.consDist(k, i)), float32(1/m.consDist(k, end))
			zc := padStop(bw.stop[c]) + m.consStopPad[k] // c < chunks: i ≤ n
			for b := range Lanes {
				h := zc - bw.eye[b]
				bound := h * far
				if h >= 0 {
					bound = h * near
				}
				if bound <= j.cur[b] {
					skip |= 1 << b
				}
			}
			if todo&^skip == 0 {
				for r := i + e; r <= end+e; r++ {
					*(*[Lanes]float32)(bw.prof[(pos+r)*Lanes:]) = j.cur
				}
				last = end + e
				i = end
				if i&(1<<stepShift-1) == 0 && i>>stepShift < chunks+1 {
					j.inv = far
					bw.consStop(&todo, top[i>>stepShift]+m.consStopPad[k])
				}
				continue
			}
		}
		if bw.k.consRun != nil && i <= m.consL {
			// The steps to the chunk's end, the next lane's leaving or
			// the table's end at once: none changes the live lanes.
			hi := min(((i-1)|(1<<stepShift-1))+1, next, n-e, m.consL)
			j.live = todo &^ skip
			bw.k.consRun(bw, j, k, i, hi-i+1, bw.prof[(pos+i+e)*Lanes:(pos+hi+e+1)*Lanes])
			last, i = hi+e, hi
			if i&(1<<stepShift-1) == 0 && i>>stepShift < chunks+1 {
				bw.consStop(&todo, top[i>>stepShift]+m.consStopPad[k])
			}
			continue
		}
		j.segs, j.bulge, j.drop, j.inv = m.consStep(k, i, &bw.consSegs)
		j.live = todo &^ skip
		bw.k.cons(bw, j)
		*(*[Lanes]float32)(bw.prof[(pos+i+e)*Lanes:]) = j.cur
		last = i + e
		if i&(1<<stepShift-1) == 0 && i>>stepShift < chunks+1 {
			bw.consStop(&todo, top[i>>stepShift]+m.consStopPad[k])
		}
	}
	for r := last + 1; r <= n; r++ {
		*(*[Lanes]float32)(bw.prof[(pos+r)*Lanes:]) = j.cur
	}
	bw.n[k] = int32(n)
	bw.Stats.WalkSteps += max(last-e, 0) * Lanes // the steps walked, chunks skipped included
}

// consStop drops from todo the lanes whose running maximum has reached
// their slope bound at 1/d = consJ.inv over the steps after a chunk's end,
// whose samples lie at most z metres high (padStop): no later step can
// raise it. Lanes whose eye is above that bound are not stopped (their
// bound would grow with distance).
func (bw *BlockWorker) consStop(todo *uint16, z float32) {
	j := &bw.consJ
	zc := padStop(z)
	for b := range Lanes {
		if v := zc - bw.eye[b]; v >= 0 && j.cur[b] >= v*j.inv {
			*todo &^= 1 << b
		}
	}
}

// padStop returns a band height z in metres raised for the rounding of
// the samples it bounds: 1 cm and 10⁻⁶ of its magnitude.
func padStop(z float32) float32 {
	return z + 0.01 + float32(1e-6*float32(math.Abs(float64(z))))
}

// curveDrop returns sector k's Earth-curvature drop per step², metres (0
// without curvature).
func curveDrop(m *Model, k int) float32 {
	if m.secDrop == nil {
		return 0
	}
	return m.secDrop[k]
}
