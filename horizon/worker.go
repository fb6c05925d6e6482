package horizon

import (
	"fmt"
	"math"
)

// Sector is one sector's approximate horizon as seen from an observer's eye.
type Sector struct {
	Azimuth   float64 // of the sector's midline, radians clockwise from grid north (up)
	Elevation float64 // horizon elevation angle, radians above the eye's horizontal; -π/2 when the midline has no cell
	Distance  float64 // metres from the observer to the horizon cell; 0 when the midline has no cell
}

// Worker computes viewsheds on one Model. It owns scratch memory reused from
// call to call, so it must not be shared between goroutines; make one Worker
// per goroutine.
type Worker struct {
	m *Model
	// prof[j] is the running maximum slope (tangent of the elevation angle)
	// of the midline steps up to slot j, for the last observer: sector k's
	// slots are [lineStart[k], lineStart[k]+n[k]], the first the observer
	// itself (-Inf).
	prof []float32
	n    []int32   // steps of each sector's midline walked (inside the grid), last observer
	suf  []float32 // scratch of suffixMax
	eye  float32   // eye elevation of the last observer, metres
	tau  float32   // target height plus margin minus eye elevation, metres
	col  int       // last observer
	row  int
	band band      // early-stop bounds shared by the observers of one tile
	segs []consSeg // scratch of the conservative walk
}

// NewWorker returns a Worker with its scratch allocated: 4 bytes per
// midline slot, and 4 bytes per sector per 16 cells of the terrain's longer
// side for the early-stop band.
func (m *Model) NewWorker() *Worker {
	return &Worker{
		m:    m,
		prof: make([]float32, m.lineStart[m.p.Sectors]),
		n:    make([]int32, m.p.Sectors),
		suf:  make([]float32, max(m.t.Width, m.t.Height)>>chunkShift+2),
		band: m.newBand(),
	}
}

// Viewshed computes the visibility of every cell from an observer standing at
// cell (col,row) and returns it as a Bitmap (set bit = visible). It reuses
// dst's words when dst has the terrain's size, and allocates otherwise. The
// observer's own cell is always visible.
//
// Cost: one step per midline cell inside the grid (S lines) plus one test
// per cell. Errors: ErrOutside when (col,row) is not a cell of the terrain.
func (w *Worker) Viewshed(col, row int, dst Bitmap) (Bitmap, error) {
	m := w.m
	W, H := m.t.Width, m.t.Height
	if col < 0 || row < 0 || col >= W || row >= H {
		return dst, fmt.Errorf("%w: (%d,%d) is not in the %d×%d grid", ErrOutside, col, row, W, H)
	}
	if dst.Width != W || dst.Height != H || len(dst.Words) != (W*H+63)/64 {
		dst = NewBitmap(W, H)
	}
	w.walk(col, row)
	w.classify(dst.Words)
	return dst, nil
}

// chunkShift sets the granularity of the early stop: lines are checked every
// 2^chunkShift steps against the highest elevation of the rest of the line,
// read from the elevation pyramid's tiles of that side.
const chunkShift = 5

// walk fills the profiles of all sectors for the observer at (col,row),
// by the model's rule (Model.lines).
func (w *Worker) walk(col, row int) { w.m.lines.walk(w, col, row) }

// observe sets w's observer to (col,row), its eye (the cell's top plus
// the observer height, metres) and tau, and returns the eye.
func (w *Worker) observe(col, row int) float32 {
	m := w.m
	eye := m.top[row*m.t.Width+col] + float32(m.p.ObserverHeight)
	w.eye, w.col, w.row = eye, col, row
	w.tau = float32(m.p.TargetHeight+m.p.Margin) - eye
	return eye
}

// suffixMax fills w.suf for sector k's line of n steps from (col,row):
// suf[c] bounds the height above the eye of every sample of steps
// c·2^chunkShift+1 … n (padded for the rounding of interpolated samples);
// suf[c] = +Inf means no stop is possible there. It returns w.suf.
func (w *Worker) suffixMax(k, col, row, n int, eye float32) []float32 {
	m := w.m
	chunks := (n + 1<<chunkShift - 1) >> chunkShift
	suf := w.suf[:chunks+1]
	suf[chunks] = float32(math.Inf(-1))
	tl := min(chunkShift, len(m.zmax)-1)
	tiles, tcols := m.zmax[tl], int(m.cols[tl])
	mf := m.secSlope[k]
	dir := 1
	if m.secMajor[k] < 0 {
		dir = -1
	}
	major, minor := col, row
	if !m.secColMaj[k] {
		major, minor = row, col
	}
	for c := chunks - 1; c >= 0; c-- {
		i0, i1 := c<<chunkShift+1, min((c+1)<<chunkShift, n) // steps of the chunk
		a0, a1 := major+dir*i0, major+dir*i1
		b0, b1 := minor+int((int64(i0)*mf)>>32), minor+int((int64(i1)*mf)>>32)
		a0, a1 = min(a0, a1)>>tl, max(a0, a1)>>tl
		b0, b1 = min(b0, b1)>>tl, (max(b0, b1)+1)>>tl // the second cell of a step
		z := suf[c+1]
		for a := a0; a <= a1; a++ {
			for b := b0; b <= b1; b++ {
				x, y := a, b
				if !m.secColMaj[k] {
					x, y = b, a
				}
				if y*tcols+x < len(tiles) && x < tcols {
					z = max(z, tiles[y*tcols+x])
				}
			}
		}
		suf[c] = z
	}
	for c := range suf {
		if suf[c] = suf[c] + 0.01 + float32(1e-6*float32(math.Abs(float64(suf[c])))) - eye; !(suf[c] >= 0) {
			suf[c] = float32(math.Inf(1)) // lower than the eye: no decreasing bound
		}
	}
	return suf
}

// walkLine fills prof[i] with the running maximum slope, seen from an eye at
// elevation eye, of the midline's steps 1…len(prof): step i+1 samples cell
// a0+i·maj+floor(y)·mw and its neighbour at +mw with weight frac(y), y =
// (i+1)·mf in 32.32 fixed point; rec[i] = 1/(i+1) and inv is 1/(metres per
// step). After each chunk of 2^chunkShift steps it stops if the maximum has
// reached the steepest slope the rest of the line could have (suf, from
// suffixMax), and returns the steps filled. A leaf function, so that its few
// variables stay in registers.
func walkLine(prof, rec, elev, suf []float32, a0, maj, mw int, mf int64, eye, inv float32) int {
	cur := float32(math.Inf(-1))
	y := mf
	rec = rec[:len(prof)]
	for i := range prof {
		a := a0 + int(y>>32)*mw
		z0 := elev[a]
		z := z0 + float32(float32(uint32(y))*0x1p-32*(elev[a+mw]-z0))
		t := inv * rec[i]
		if s := (z - eye) * t; s > cur {
			cur = s
		}
		prof[i] = cur
		if (i+1)&(1<<chunkShift-1) == 0 && cur >= suf[(i+1)>>chunkShift]*t {
			return i + 1
		}
		y += mf
		a0 += maj
	}
	return len(prof)
}

// walkLineCurved is walkLine with the Earth-curvature drop dk·i² metres at
// step i.
func walkLineCurved(prof, rec, elev, suf []float32, a0, maj, mw int, mf int64, eye, inv, dk float32) int {
	cur := float32(math.Inf(-1))
	y := mf
	rec = rec[:len(prof)]
	for i := range prof {
		a := a0 + int(y>>32)*mw
		z0 := elev[a]
		z := z0 + float32(float32(uint32(y))*0x1p-32*(elev[a+mw]-z0))
		fi := float32(i + 1)
		t := inv * rec[i]
		if s := (z - float32(dk*fi*fi) - eye) * t; s > cur {
			cur = s
		}
		prof[i] = cur
		if (i+1)&(1<<chunkShift-1) == 0 && cur >= suf[(i+1)>>chunkShift]*t {
			return i + 1
		}
		y += mf
		a0 += maj
	}
	return len(prof)
}

// slot returns the profile slot of sector k that decides a cell at d metres:
// the last step at least marginSteps steps closer than d (the observer's
// own slot, of slope -Inf, when none; the line's last step inside the grid
// when the cell lies beyond it).
func (w *Worker) slot(k int, d float32) int {
	j := min(int(float32(d*w.m.secInv[k])-marginSteps), int(w.n[k]))
	return int(w.m.lineStart[k]) + max(j, 0)
}

// brackets returns the two sectors whose midlines bracket azimuth u (in
// sectors, [0,S)): floor(u-½) and the next, modulo S.
func brackets(u float32, s int) (k0, k1 int) {
	k0 = int(u + float32(s) - 0.5)
	if k0 >= s {
		k0 -= s
	}
	k1 = k0 + 1
	if k1 == s {
		k1 = 0
	}
	return k0, k1
}

// threshold returns the slope a target at distance d metres and azimuth u
// sectors must reach to be visible: the lower of the two bracketing
// midlines' running maxima at its distance (+Inf beyond MaxDistance); in
// the conservative mode the first one's, whose profile bounds the wedge
// between the two.
func (w *Worker) threshold(u, d float32) float32 {
	m := w.m
	if d > m.lim {
		return float32(math.Inf(1))
	}
	k0, k1 := brackets(u, m.p.Sectors)
	if m.k1 == 0 {
		k1 = k0 // the wedge from midline k0 to k0+1 holds u (conservative.go)
	}
	return min(w.prof[w.slot(k0, d)], w.prof[w.slot(k1, d)])
}

// cellVisible applies the per-cell test to cell (c,r), whose offset from the
// last observer lies within reach.
func (w *Worker) cellVisible(c, r int) bool {
	m := w.m
	o, u := m.offset(c-w.col, r-w.row)
	z := m.top[r*m.t.Width+c] + w.tau
	if m.offDrp != nil {
		z -= m.offDrp[o]
	}
	return z*m.offInv[o] >= w.threshold(u, m.offD[o])
}

// classify sets one bit per cell: visible when the target's top is at or
// above the running maximum slope, at its distance, of either of the two
// midlines that bracket its azimuth (hidden only when both hide it); cells
// beyond MaxDistance are hidden.
func (w *Worker) classify(words []uint64) {
	m := w.m
	W, H := m.t.Width, m.t.Height
	clear(words)
	c0, c1 := max(w.col-m.rc, 0), min(w.col+m.rc, W-1)
	r0, r1 := max(w.row-m.rr, 0), min(w.row+m.rr, H-1)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			if w.cellVisible(c, r) {
				i := r*W + c
				words[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	}
	obs := w.row*W + w.col
	words[obs>>6] |= 1 << (uint(obs) & 63)
}

// Horizon appends to dst the approximate horizon of every sector (S entries,
// sector k at azimuth (k+½)·2π/S) for the observer of the last Viewshed or
// Classify call.
func (w *Worker) Horizon(dst []Sector) []Sector {
	m := w.m
	for k := range m.p.Sectors {
		s := Sector{Azimuth: m.sectorAzimuth(k), Elevation: -math.Pi / 2}
		start, n := int(m.lineStart[k]), int(w.n[k])
		if n > 0 {
			top := w.prof[start+n]
			j := 1
			for w.prof[start+j] < top {
				j++ // the first step that reaches the line's maximum
			}
			s.Elevation = math.Atan(float64(top))
			s.Distance = float64(j) * m.secStep[k]
		}
		dst = append(dst, s)
	}
	return dst
}
