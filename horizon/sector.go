package horizon

import "math"

// sectorLines implements LOSSector, the thesis's model (§3.1): a line's
// profile is the running maximum slope of its midline's samples, each
// interpolated between the two cells the midline crosses at a step, and a
// cell reads the lower of its two bracketing midlines' profiles (k1 = 1).
type sectorLines struct{}

func (sectorLines) setup(m *Model) { m.k1 = 1 }

// tableBytes: the sector model needs no tables beyond TableBytes's.
func (sectorLines) tableBytes(width, height, sectors int) int64 { return 0 }

// walk fills the Worker's profiles of all sectors for the observer at (col,row).
//
// A line stops early: once its running maximum reaches the steepest slope
// any later step could have — from the highest elevation of the rest of the
// line — no later step can raise it, and every later slot reads the line's
// last computed one (slot clamps to n[k]), so the profile is the same as the
// full walk's.
func (sectorLines) walk(w *Worker, col, row int) {
	m := w.m
	W := m.t.Width
	elev := m.t.Elev
	obs := row*W + col
	eye := w.observe(col, row) // the sector model's tops are Elev
	negInf := float32(math.Inf(-1))
	shared := w.useBand(col, row)
	for k := range w.n {
		start := int(m.lineStart[k])
		n := m.steps(k, col, row)
		w.prof[start] = negInf
		prof := w.prof[start+1 : start+1+n]
		rec := m.recip[1 : n+1]
		mf, maj, mw, inv := m.secSlope[k], int(m.secMajor[k]), int(m.secMinor[k]), m.secInv[k]
		var suf []float32
		if shared {
			suf = w.bandSuffix(k, col, row, n, eye)
		} else {
			suf = w.suffixMax(k, col, row, n, eye)
		}
		if m.secDrop == nil {
			n = walkLine(prof, rec, elev, suf, obs+maj, maj, mw, mf, eye, inv)
		} else {
			n = walkLineCurved(prof, rec, elev, suf, obs+maj, maj, mw, mf, eye, inv, m.secDrop[k])
		}
		w.n[k] = int32(n)
	}
}

// walkBlock fills sector k's rows pos+1 … pos+n of every lane with the
// lane's midline profile by the block kernel (bw.k.walk), which stops
// early on the band's heights bw.stop; it returns n, the steps walked.
func (sectorLines) walkBlock(bw *BlockWorker, k, pos, nmax, chunks int) int {
	m := bw.m
	W := m.t.Width
	base := (bw.row+blockPad)*bw.padW + bw.col + blockPad // lane 0's observer in the padded elevations
	maj, mw := int(m.secMajor[k]), int(m.secMinor[k])
	if m.secColMaj[k] {
		mw = bw.padW
	} else {
		maj = maj / W * bw.padW
	}
	n := bw.k.walk(bw.prof[(pos+1)*Lanes:(pos+1+nmax)*Lanes], m.recip[1:nmax+1], bw.elev, &bw.lane, &bw.ext, &bw.eye,
		bw.stop[:chunks], bw.sb[:chunks*Lanes], base+maj, maj, mw, m.secSlope[k], m.secInv[k], curveDrop(m, k))
	bw.n[k] = int32(n)
	bw.Stats.WalkSteps += n * Lanes
	return n
}
