package losref

import (
	"math"
	"math/rand/v2"
)

// Surface returns the bilinear surface in metres at position (x,y) in
// fractional cells (column, row; sample (c,r) at (c,r)), clamped to the
// grid's hull [0, Width−1] × [0, Height−1].
func Surface(g Grid, x, y float64) float64 {
	x = min(max(x, 0), float64(g.Width-1))
	y = min(max(y, 0), float64(g.Height-1))
	return bilinear(g, x, y)
}

// PositionClearance returns the least height in metres of the segment
// from an eye hObs above the surface at position (x0,y0) to a top tau
// above (x1,y1) (fractional cells, inside the grid's hull) over the
// surface, sampled perCell times per cell of its major axis and where it
// crosses each column and row line of the grid, skipping the samples
// inside the heightmap cell centred on either end (|Δx| ≤ ½ and |Δy| ≤ ½
// cells), as Visible skips its end cells: negative when the segment passes
// under the surface, +Inf when every sample is skipped.
func PositionClearance(g Grid, x0, y0, x1, y1, hObs, tau float64, perCell int) float64 {
	dx, dy := x1-x0, y1-y0
	z0 := Surface(g, x0, y0) + hObs
	z1 := Surface(g, x1, y1) + tau
	n := int(math.Ceil(float64(perCell) * max(math.Abs(dx), math.Abs(dy))))
	best := math.Inf(1)
	at := func(f float64) {
		x, y := x0+f*dx, y0+f*dy
		if (math.Abs(x-x0) <= 0.5 && math.Abs(y-y0) <= 0.5) || (math.Abs(x-x1) <= 0.5 && math.Abs(y-y1) <= 0.5) {
			return
		}
		best = min(best, z0+f*(z1-z0)-bilinear(g, x, y))
	}
	for i := 1; i < n; i++ {
		at(float64(i) / float64(n))
	}
	// And where the segment crosses the grid's column and row lines,
	// along which the surface is linear between samples: the points a
	// bound along those lines (horizon's region version 4) decides on.
	for _, e := range [2][2]float64{{x0, dx}, {y0, dy}} {
		if e[1] == 0 {
			continue
		}
		a, b := e[0], e[0]+e[1]
		for v := math.Ceil(min(a, b)); v <= max(a, b); v++ {
			if f := (v - a) / e[1]; f > 0 && f < 1 {
				at(f)
			}
		}
	}
	return best
}

// PositionVisible reports whether PositionClearance is at least 0: the
// eye at (x0,y0) sees the top at (x1,y1).
func PositionVisible(g Grid, x0, y0, x1, y1, hObs, tau float64, perCell int) bool {
	return PositionClearance(g, x0, y0, x1, y1, hObs, tau, perCell) >= 0
}

// Positions searches for the highest sight line between positions inside
// two cells: the from-region check of horizon.LOSRegion. A cell's square
// is the heightmap cell centred on its sample, clipped to the grid's hull;
// with Cell = k > 1, cells are PVS cells of k×k heightmap cells
// (horizon.PVSGrid): PVS cell (C, R)'s square is the union of heightmap
// cells kC … kC+k−1, kR … kR+k−1, clipped to the hull.
type Positions struct {
	Cell      int // heightmap cells per side of a cell (0 or 1: the heightmap's)
	Grid      Grid
	HObs, Tau float64 // eye and top above the surface, metres
	PerCell   int     // samples per cell along a segment (PositionClearance)
	Random    int     // random position pairs per cell pair, after the 16 corner combinations
	Search    bool    // then a coordinate ascent on the clearance from the best pair
	// Dx, Dy are the cell spacing in metres; with MaxDistance > 0 metres,
	// positions farther apart than that see nothing (the store's view
	// distance).
	Dx, Dy, MaxDistance float64
}

// Clearance is PositionClearance of an eye s.HObs above position (x0,y0)
// and a top s.Tau above (x1,y1) (heightmap cells), s.PerCell samples per
// cell, in metres: −Inf when the positions are farther apart than
// s.MaxDistance, where every line of sight of the store ends.
func (s Positions) Clearance(x0, y0, x1, y1 float64) float64 {
	if s.MaxDistance > 0 && math.Hypot((x1-x0)*s.Dx, (y1-y0)*s.Dy) > s.MaxDistance {
		return math.Inf(-1)
	}
	return PositionClearance(s.Grid, x0, y0, x1, y1, s.HObs, s.Tau, s.PerCell)
}

// Worst tries position pairs p in cell (oc,or) and q in cell (tc,tr): the
// 16 combinations of the squares' corners, s.Random random pairs from rng,
// and with s.Search a coordinate ascent on the clearance (steps of ¼ cell
// down to 1/32 heightmap cell) from the best of those. It returns how many pairs it tried
// and the highest clearance in metres (≥ 0: that pair sees each other;
// −Inf when every pair is beyond MaxDistance).
func (s Positions) Worst(rng *rand.Rand, oc, or, tc, tr int) (pairs int, best float64) {
	W, H := s.Grid.Width, s.Grid.Height
	k := float64(max(s.Cell, 1))
	lo := func(v int) float64 { return max(k*float64(v)-0.5, 0) }
	hiC := func(v int) float64 { return min(k*float64(v)+k-0.5, float64(W-1)) }
	hiR := func(v int) float64 { return min(k*float64(v)+k-0.5, float64(H-1)) }
	clampC := func(x float64, v int) float64 { return min(max(x, lo(v)), hiC(v)) }
	clampR := func(y float64, v int) float64 { return min(max(y, lo(v)), hiR(v)) }
	type pos struct{ x0, y0, x1, y1 float64 }
	eval := func(p pos) float64 {
		pairs++
		return s.Clearance(p.x0, p.y0, p.x1, p.y1)
	}
	best = math.Inf(-1)
	var arg pos
	try := func(p pos) {
		if c := eval(p); c > best || pairs == 1 {
			best, arg = c, p
		}
	}
	for k := range 16 {
		try(pos{[2]float64{lo(oc), hiC(oc)}[k&1], [2]float64{lo(or), hiR(or)}[k>>1&1],
			[2]float64{lo(tc), hiC(tc)}[k>>2&1], [2]float64{lo(tr), hiR(tr)}[k>>3&1]})
	}
	in := func(v int, hi func(int) float64) float64 { return lo(v) + rng.Float64()*(hi(v)-lo(v)) }
	for range s.Random {
		try(pos{in(oc, hiC), in(or, hiR), in(tc, hiC), in(tr, hiR)})
	}
	if !s.Search {
		return pairs, best
	}
	for step := 0.25 * k; step > 0.02; step /= 2 {
		for improved := true; improved; {
			improved = false
			for d := range 8 {
				p := arg
				v := step * float64(1-2*(d&1))
				switch d >> 1 {
				case 0:
					p.x0 = clampC(p.x0+v, oc)
				case 1:
					p.y0 = clampR(p.y0+v, or)
				case 2:
					p.x1 = clampC(p.x1+v, tc)
				default:
					p.y1 = clampR(p.y1+v, tr)
				}
				if c := eval(p); c > best {
					best, arg, improved = c, p, true
				}
			}
		}
	}
	return pairs, best
}
