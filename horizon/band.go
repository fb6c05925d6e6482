package horizon

import "math"

// band holds early-stop bounds shared by the observers of one tile of
// 2^bandShift × 2^bandShift cells, for observers visited tile by tile (the
// bake's Morton order). For sector k, the midlines from every observer of the
// tile cross, within major-axis tile P of the pyramid's level tl (P = major
// coordinate >> tl), only cells of a band a few tiles wide; suf[k·stride+P]
// is the highest elevation in metres (padded for the rounding of
// interpolated samples) of the bands at P and every tile beyond
// it in the sector's direction. A line's bound from step i on is then one
// load (bandSuffix) instead of a walk over the pyramid's tiles along the line
// (suffixMax): the bound is looser — the whole band rather than the line's
// own tiles — and costs S·(tiles across) reads once per tile of observers.
type band struct {
	tx, ty int       // observer tile (col, row >> bandShift); -1 when none
	seen   int       // observers of tile (tx,ty) walked so far
	ok     bool      // suf holds tile (tx,ty)'s bounds
	stride int       // major-axis tiles of the longer side
	suf    []float32 // S × stride, metres; -Inf where no midline of the tile reaches
	// tile, when not nil, receives the same bound per tile P before the
	// suffix maxima: the band's highest elevation at P alone (the block
	// engine's slope-suffix stop).
	tile []float32
}

// bandShift sets the side of the observer tiles that share a band and of
// the pyramid tiles it is read from: 2^bandShift cells (BenchmarkClassify).
const bandShift = 4

// bandAfter is how many observers of a tile are walked with suffixMax before
// the tile's band is built: observers visited in no particular order (single
// viewsheds) never pay for a band.
const bandAfter = 2

// useBand reports whether the band of (col,row)'s tile is ready, building
// it once the tile has been entered bandAfter times in a row.
func (w *Worker) useBand(col, row int) bool {
	b := &w.band
	tx, ty := col>>bandShift, row>>bandShift
	if tx != b.tx || ty != b.ty {
		b.tx, b.ty, b.seen, b.ok = tx, ty, 0, false
	}
	b.seen++
	if !b.ok && b.seen > bandAfter {
		b.build(w.m)
		b.ok = true
	}
	return b.ok
}

// newBand returns a band with its table allocated: 4 bytes per sector per
// tile along the terrain's longer side.
func (m *Model) newBand() band {
	tl := min(bandShift, len(m.zmax)-1)
	stride := (max(m.t.Width, m.t.Height) + 1<<tl - 1) >> tl // band tiles along the longer side
	return band{tx: -1, ty: -1, stride: stride, suf: make([]float32, m.p.Sectors*stride)}
}

// build fills b.suf for tile (b.tx, b.ty) of m's terrain.
func (b *band) build(m *Model) {
	W, H := m.t.Width, m.t.Height
	tl := min(bandShift, len(m.zmax)-1)
	tiles, tcols := m.zmax[tl], int(m.cols[tl])
	negInf := float32(math.Inf(-1))
	for k := range m.p.Sectors {
		colMaj, mf := m.secColMaj[k], m.secSlope[k]
		dir := 1
		if m.secMajor[k] < 0 {
			dir = -1
		}
		majLen, minLen := W, H
		ta, tb := b.tx, b.ty // observer tile along the major and minor axes
		if !colMaj {
			majLen, minLen = H, W
			ta, tb = b.ty, b.tx
		}
		mA, mB := ta<<bandShift, min((ta+1)<<bandShift, majLen)-1 // observers' major range
		nA, nB := tb<<bandShift, min((tb+1)<<bandShift, minLen)-1 // and minor range
		steps := int(m.secMax[k])
		suf := b.suf[k*b.stride : (k+1)*b.stride]
		nP := (majLen + 1<<tl - 1) >> tl
		pLo, pHi := mA>>tl, min(nP-1, (mB+steps)>>tl)
		if dir < 0 {
			pLo, pHi = max(0, (mA-steps)>>tl), mB>>tl
		}
		for P := range nP {
			if P < pLo || P > pHi {
				suf[P] = negInf
				continue
			}
			p0, p1 := P<<tl, min((P+1)<<tl, majLen)-1
			iLo, iHi := p0-mB, p1-mA // steps of the tile's lines that land in P
			if dir < 0 {
				iLo, iHi = mA-p1, mB-p0
			}
			iLo, iHi = max(iLo, 1), min(iHi, steps)
			if iHi < iLo {
				suf[P] = negInf
				continue
			}
			yLo, yHi := int((int64(iLo)*mf)>>32), int((int64(iHi)*mf)>>32)
			if mf < 0 {
				yLo, yHi = yHi, yLo
			}
			b0, b1 := max(nA+yLo, 0)>>tl, min(nB+yHi+1, minLen-1)>>tl // +1: a step's second cell
			if b0 > b1 {
				suf[P] = negInf // the band has left the grid: no step lands here
				continue
			}
			z := negInf
			for bb := b0; bb <= b1; bb++ {
				x, y := P, bb
				if !colMaj {
					x, y = bb, P
				}
				z = max(z, tiles[y*tcols+x])
			}
			suf[P] = z + 0.01 + float32(1e-6*float32(math.Abs(float64(z)))) // padded for interpolated samples
		}
		if b.tile != nil {
			copy(b.tile[k*b.stride:(k+1)*b.stride], suf)
		}
		// Suffix maxima in the sector's direction.
		if dir > 0 {
			for P := nP - 2; P >= 0; P-- {
				suf[P] = max(suf[P], suf[P+1])
			}
		} else {
			for P := 1; P < nP; P++ {
				suf[P] = max(suf[P], suf[P-1])
			}
		}
	}
}

// bandSuffix fills w.suf from the band as suffixMax does from the line's own
// tiles: suf[c] bounds the height above the eye (metres, padded for the
// rounding of interpolated samples) of every sample of steps
// c·2^chunkShift+1 … n of sector k's line from (col,row); +Inf means no stop
// is possible there.
func (w *Worker) bandSuffix(k, col, row, n int, eye float32) []float32 {
	m := w.m
	chunks := (n + 1<<chunkShift - 1) >> chunkShift
	suf := w.suf[:chunks+1]
	suf[chunks] = float32(math.Inf(1))
	tl := min(bandShift, len(m.zmax)-1)
	major, dir := col, 1
	if !m.secColMaj[k] {
		major = row
	}
	if m.secMajor[k] < 0 {
		dir = -1
	}
	bs := w.band.suf[k*w.band.stride : (k+1)*w.band.stride]
	for c := range chunks {
		if z := bs[(major+dir*(c<<chunkShift+1))>>tl] - eye; !(z >= 0) {
			suf[c] = float32(math.Inf(1)) // lower than the eye: no decreasing bound
		} else {
			suf[c] = z
		}
	}
	return suf
}
