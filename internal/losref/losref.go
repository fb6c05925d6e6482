// Package losref is the slow, exact line-of-sight reference the sector
// method (horizon, thesis §3.1) is measured against: the segment from the
// observer's eye to the target's top, sampled at half-cell steps against the
// bilinearly interpolated surface through the cell centres. It is quadratic
// per observer: for tests and audits on small windows only.
package losref

import "math"

// Grid is a heightmap: Width×Height elevations in metres, row-major
// (cell (col,row) at Elev[row*Width+col]).
type Grid struct {
	Width, Height int
	Elev          []float32
}

// Visible reports whether a target at (tc,tr), its top tau metres above the
// ground, is visible from an eye hObs metres above (oc,or): the segment
// between them, sampled at half-cell steps with the samples inside the two
// end cells skipped, never passes below the surface. With hObs == tau it is
// symmetric.
func Visible(g Grid, oc, or, tc, tr int, hObs, tau float64) bool {
	return VisibleSampled(g, oc, or, tc, tr, hObs, tau, 2)
}

// VisibleSampled is Visible with perCell samples per cell along the
// segment's major axis (Visible: 2), for checks that need the segment's
// dips between half-cell samples.
func VisibleSampled(g Grid, oc, or, tc, tr int, hObs, tau float64, perCell int) bool {
	return gaps(g, oc, or, tc, tr, hObs, tau, perCell, func(gap float64) bool { return gap >= 0 })
}

// Clearance returns the least height in metres of the segment from an eye
// hObs above (oc,or) to a top tau above (tc,tr) over the surface, sampled
// perCell times per cell with the end cells skipped as in Visible: negative
// when the segment passes under the surface. +Inf for a cell and itself.
func Clearance(g Grid, oc, or, tc, tr int, hObs, tau float64, perCell int) float64 {
	best := math.Inf(1)
	gaps(g, oc, or, tc, tr, hObs, tau, perCell, func(gap float64) bool {
		best = min(best, gap)
		return true
	})
	return best
}

// gaps walks the segment from an eye hObs above (oc,or) to a top tau above
// (tc,tr), perCell samples per cell of its major axis, skipping the samples
// that round to either end cell, and calls more with the segment's height
// above the surface (metres) at each until it returns false; it reports
// whether every call returned true.
func gaps(g Grid, oc, or, tc, tr int, hObs, tau float64, perCell int, more func(gap float64) bool) bool {
	dc, dr := tc-oc, tr-or
	if dc == 0 && dr == 0 {
		return true
	}
	z0 := float64(g.Elev[or*g.Width+oc]) + hObs
	z1 := float64(g.Elev[tr*g.Width+tc]) + tau
	n := perCell * max(abs(dc), abs(dr))
	for i := 1; i < n; i++ {
		f := float64(i) / float64(n)
		x, y := float64(oc)+f*float64(dc), float64(or)+f*float64(dr)
		rx, ry := int(math.Round(x)), int(math.Round(y))
		if (rx == oc && ry == or) || (rx == tc && ry == tr) {
			continue
		}
		if !more(z0 + f*(z1-z0) - bilinear(g, x, y)) {
			return false
		}
	}
	return true
}

// bilinear interpolates the surface at fractional cell coordinates (x,y).
func bilinear(g Grid, x, y float64) float64 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	x1, y1 := min(x0+1, g.Width-1), min(y0+1, g.Height-1)
	fx, fy := x-float64(x0), y-float64(y0)
	z := func(c, r int) float64 { return float64(g.Elev[r*g.Width+c]) }
	a := z(x0, y0) + fx*(z(x1, y0)-z(x0, y0))
	b := z(x0, y1) + fx*(z(x1, y1)-z(x0, y1))
	return a + fy*(b-a)
}

// Viewshed returns the reference visibility of every cell from (oc,or),
// row-major like Grid.Elev.
func Viewshed(g Grid, oc, or int, hObs, tau float64) []bool {
	v := make([]bool, g.Width*g.Height)
	for r := range g.Height {
		for c := range g.Width {
			v[r*g.Width+c] = Visible(g, oc, or, c, r, hObs, tau)
		}
	}
	return v
}

// Fidelity accumulates how a method's viewsheds compare with the reference.
type Fidelity struct {
	Visible, Hidden int // cells truly visible / truly hidden
	Misses          int // truly visible cells classified hidden (the dangerous error)
	Extra           int // truly hidden cells classified visible (conservative)
}

// Add compares got (visible(i) for cell index i) with the reference want.
func (f *Fidelity) Add(got func(i int) bool, want []bool) {
	for i, w := range want {
		g := got(i)
		switch {
		case w && !g:
			f.Misses++
		case !w && g:
			f.Extra++
		}
		if w {
			f.Visible++
		} else {
			f.Hidden++
		}
	}
}

// MissRate is the share of truly visible cells classified hidden.
func (f Fidelity) MissRate() float64 { return float64(f.Misses) / float64(max(f.Visible, 1)) }

// ExtraRate is the share of truly hidden cells classified visible.
func (f Fidelity) ExtraRate() float64 { return float64(f.Extra) / float64(max(f.Hidden, 1)) }

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
