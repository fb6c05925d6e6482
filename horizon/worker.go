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
	// of the midline steps up to step j, for the last observer.
	prof []float32
	// last[k] is the last profile slot of sector k inside the grid for the
	// last observer; last[S] = 0, the +Inf slot.
	last []int32
	// horizon cell (step index) of each sector for the last observer, or -1.
	hstep []int32
	eye   float32 // eye elevation of the last observer, metres
}

// NewWorker returns a Worker with its scratch allocated (about 4 bytes per
// midline step).
func (m *Model) NewWorker() *Worker {
	w := &Worker{
		m:     m,
		prof:  make([]float32, len(m.stepDC)),
		last:  make([]int32, m.p.Sectors+1),
		hstep: make([]int32, m.p.Sectors),
	}
	w.prof[0] = float32(math.Inf(1))
	return w
}

// Viewshed computes the visibility of every cell from an observer standing at
// cell (col,row) and returns it as a Bitmap (set bit = visible). It reuses
// dst's words when dst has the terrain's size, and allocates otherwise. The
// observer's own cell is always visible.
//
// Cost: one step per midline cell inside the grid (S lines) plus one lookup
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
	w.classify(col, row, dst.Words)
	return dst, nil
}

// walk fills the profiles of all sectors for the observer at (col,row).
func (w *Worker) walk(col, row int) {
	m := w.m
	W, H := m.t.Width, m.t.Height
	elev := m.t.Elev
	obs := row*W + col
	eye := elev[obs] + float32(m.p.ObserverHeight)
	w.eye = eye
	prof := w.prof
	dc, dr, delta, wgt, inv := m.stepDC, m.stepDR, m.stepDelta, m.stepWeight, m.stepInvDist
	drop := m.stepDrop
	S := m.p.Sectors
	for k := range S {
		start, end := int(m.lineStart[k]), int(m.lineStart[k+1])
		bdc, bdr := int(m.secBDC[k]), int(m.secBDR[k])
		b := bdr*W + bdc // index offset of a step's second cell
		// The line leaves the grid when its first cell or its second cell does.
		colLo, colHi := col, col+bdc
		rowLo, rowHi := row, row+bdr
		cur := float32(math.Inf(-1))
		prof[start] = cur
		h := int32(-1)
		j := start + 1
		for ; j < end; j++ {
			c, r := int(dc[j]), int(dr[j])
			if uint(colLo+c) >= uint(W) || uint(colHi+c) >= uint(W) || uint(rowLo+r) >= uint(H) || uint(rowHi+r) >= uint(H) {
				break
			}
			a := obs + int(delta[j])
			z := elev[a] + wgt[j]*(elev[a+b]-elev[a])
			if drop != nil {
				z -= drop[j]
			}
			s := (z - eye) * inv[j]
			if s > cur {
				cur, h = s, int32(j)
			}
			prof[j] = cur
		}
		w.last[k] = int32(j - 1)
		w.hstep[k] = h
	}
	w.last[S] = 0
}

// classify sets one bit per cell: visible when the target's top is at or
// above the running maximum slope, at its distance, of either of the two
// midlines that bracket its azimuth (hidden only when both hide it).
func (w *Worker) classify(col, row int, words []uint64) {
	m := w.m
	W, H := m.t.Width, m.t.Height
	elev := m.t.Elev
	tau := float32(m.p.TargetHeight) - w.eye
	prof, last := w.prof, w.last
	stride := 2*W - 1
	var word uint64
	i := 0
	for r := range H {
		o := (r-row+H-1)*stride + (W - 1 - col)
		prof0, prof1 := m.offProf[0][o:o+W], m.offProf[1][o:o+W]
		sec0, sec1 := m.offSector[0][o:o+W], m.offSector[1][o:o+W]
		offInv := m.offInvDist[o : o+W]
		zs := elev[r*W : r*W+W]
		var drops []float32
		if m.offDrop != nil {
			drops = m.offDrop[o : o+W]
		}
		for c := range W {
			p0, p1 := prof0[c], prof1[c]
			if l := last[sec0[c]]; p0 > l {
				p0 = l
			}
			if l := last[sec1[c]]; p1 > l {
				p1 = l
			}
			z := zs[c] + tau
			if drops != nil {
				z -= drops[c]
			}
			if z*offInv[c] >= min(prof[p0], prof[p1]) {
				word |= 1 << (uint(i) & 63)
			}
			i++
			if i&63 == 0 {
				words[i>>6-1] = word
				word = 0
			}
		}
	}
	if i&63 != 0 {
		words[i>>6] = word
	}
	obs := row*W + col
	words[obs>>6] |= 1 << (uint(obs) & 63)
}

// Horizon appends to dst the approximate horizon of every sector (S entries,
// sector k at azimuth (k+½)·2π/S) for the observer of the last Viewshed call.
func (w *Worker) Horizon(dst []Sector) []Sector {
	m := w.m
	for k := range m.p.Sectors {
		s := Sector{Azimuth: m.sectorAzimuth(k), Elevation: -math.Pi / 2}
		if h := w.hstep[k]; h >= 0 {
			s.Elevation = math.Atan(float64(w.prof[h]))
			s.Distance = float64(m.stepDist[h])
		}
		dst = append(dst, s)
	}
	return dst
}
