package horizon

import "math"

// blockPad is the border, in cells, of the padded elevations the block walk
// reads: a lane past its own line's end keeps reading (masked) beside the
// lanes still inside, at most a block side plus the interpolation's second
// cell away, and the vector walk loads whole rows of 8 and 16 floats.
const blockPad = 16

// padded returns the model's elevations with a border of blockPad cells
// (zero metres), row-major over Width+2·blockPad columns, built once.
func (m *Model) padded() ([]float32, int) {
	m.padOnce.Do(func() {
		pw := m.t.Width + 2*blockPad
		m.pad = make([]float32, pw*(m.t.Height+2*blockPad))
		for r := range m.t.Height {
			copy(m.pad[(r+blockPad)*pw+blockPad:], m.t.Elev[r*m.t.Width:(r+1)*m.t.Width])
		}
		m.padW = pw
	})
	return m.pad, m.padW
}

// walk fills every lane's profiles of all sectors for the current block.
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
	base := (bw.row+blockPad)*bw.padW + bw.col + blockPad // lane 0's observer in the padded elevations
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
		conservative := m.p.Conservative
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
		if conservative {
			bw.walkConservative(k, pos, nmax, chunks)
			bw.decimate(k, pos, nmax, &dpos)
			pos += nmax + 1
			continue
		}
		maj, mw := int(m.secMajor[k]), int(m.secMinor[k])
		if colMaj {
			mw = bw.padW
		} else {
			maj = maj / W * bw.padW
		}
		n := kernels.walk(bw.prof[(pos+1)*Lanes:(pos+1+nmax)*Lanes], m.recip[1:nmax+1], bw.elev, &bw.lane, &bw.ext, &bw.eye,
			bw.stop[:chunks], bw.sb[:chunks*Lanes], base+maj, maj, mw, m.secSlope[k], m.secInv[k], curveDrop(m, k))
		bw.n[k] = int32(n)
		bw.Stats.WalkSteps += n * Lanes
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
// translated by whole cells, so one traversal of the patches (chordPatches)
// serves all sixteen, each evaluating its own patches. A lane whose line
// leaves the grid earlier keeps its last slot, as walk does; lanes without
// data read −Inf. The early stop reads the band's highest elevation per
// chunk of 2^stepShift steps (stop) as a suffix maximum over the rest of
// the line, per lane above its eye.
func (bw *BlockWorker) walkConservative(k, pos, n, chunks int) {
	m := bw.m
	gmax := m.patchSlope()
	negInf := float32(math.Inf(-1))
	// Per lane, the bound above its eye of the rest of the line from chunk c.
	if cap(bw.consSuf) < chunks+1 {
		bw.consSuf = make([]float32, chunks+1)
	}
	top := bw.consSuf[:chunks+1]
	top[chunks] = negInf
	for c := chunks - 1; c >= 0; c-- {
		top[c] = max(top[c+1], bw.stop[c])
	}
	if cap(bw.consLane) < Lanes*(chunks+1) {
		bw.consLane = make([]float32, Lanes*(chunks+1))
	}
	suf := bw.consLane[:Lanes*(chunks+1)]
	var cur [Lanes]float32
	var last [Lanes]int // each lane's last slot written
	todo := uint16(0)   // lanes still walking
	e := m.consShift[k]
	for b := range Lanes {
		cur[b], last[b] = negInf, min(e, n)
		if bw.active&(1<<b) != 0 && e < int(bw.ext[b]) {
			todo |= 1 << b
		}
		for c := range chunks + 1 {
			v := top[c] + 0.01 + float32(1e-6*float32(math.Abs(float64(top[c])))) - bw.eye[b]
			if !(v >= 0) {
				v = float32(math.Inf(1)) // lower than the eye: no decreasing bound
			}
			suf[b*(chunks+1)+c] = v
		}
	}
	for j := 0; j <= min(e, n); j++ {
		for b := range Lanes {
			bw.prof[(pos+j)*Lanes+b] = negInf
		}
	}
	ax, ay, bx, by, bulge := m.consArc(k)
	for i := 1; i+e <= n && todo != 0; i++ {
		d := float64(i) * m.secStep[k]
		// Relative to the observer's cell; converted, as a product feeding a
		// subtraction may not be fused.
		x0, y0, x1, y1 := float64(d*ax), float64(d*ay), float64(d*bx), float64(d*by)
		bw.segs = chordPatches(x0, y0, x1, y1, bw.segs[:0])
		inv := float32(1 / d)
		var drop float32
		if m.secDrop != nil {
			drop = float32(m.secDrop[k] * float32(i*i))
		}
		for b := range Lanes {
			if todo&(1<<b) == 0 {
				continue
			}
			if i+e > int(bw.ext[b]) {
				todo &^= 1 << b // the lane's line has left the grid
				continue
			}
			cur[b] = m.chordMax(bw.col+b%BlockSide, bw.row+b/BlockSide, x0, y0, x1, y1, float64(bulge*d), gmax, bw.segs, drop, bw.eye[b], inv, cur[b])
			bw.prof[(pos+i+e)*Lanes+b] = cur[b]
			last[b] = i + e
			if i&(1<<stepShift-1) == 0 && i>>stepShift < chunks+1 && cur[b] >= suf[b*(chunks+1)+i>>stepShift]*inv {
				todo &^= 1 << b // no later step can raise the maximum
			}
		}
	}
	for b := range Lanes {
		for j := last[b] + 1; j <= n; j++ {
			bw.prof[(pos+j)*Lanes+b] = cur[b]
		}
	}
	bw.n[k] = int32(n)
	bw.Stats.WalkSteps += n * Lanes
}

// curveDrop returns sector k's Earth-curvature drop per step², metres (0
// without curvature).
func curveDrop(m *Model, k int) float32 {
	if m.secDrop == nil {
		return 0
	}
	return m.secDrop[k]
}
