package horizon

import "math"

// Conservative visibility (Params.Conservative): a target is hidden only
// when the exact line of sight to it — the segment from the observer's eye
// to the target's top over the bilinear surface through the cell centres —
// is blocked.
//
// The argument. Midline k's profile is built not from samples on the
// midline but from lower bounds zlow(d) of the surface over the arc at the
// step's distance d across the wedge from midline k to midline k+1. A
// target at azimuth u and distance D is judged, as in the sector model,
// against the lower of the two profiles of the midlines bracketing u; the
// lower midline's wedge holds u, so that profile is a valid bound and the
// lower of the two is no higher. If the target's slope is below a step's
// (zlow(d)−eye)/d for some step at d < D, then where the true ray crosses
// that arc — a point P at distance d on azimuth u — the ray's height is
// below zlow(d), and zlow(d) ≤ surface(P): the ray passes under the
// surface and the target is hidden. zlow(d) is the exact minimum of the
// surface along the arc's chord — patch by patch, where the bilinear
// surface is a quadratic in the chord's parameter — less, for each patch,
// twice its steepest edge difference (the surface's slope bound there and
// in its neighbours, gmax) times the arc's bulge beyond the chord (its
// sagitta, in cells): every arc point lies within the sagitta of a chord
// point. Earth curvature lowers
// zlow by the same drop as the true point. Steps count only when they end
// at least half a cell diagonal before the target (the blocker is then
// outside the target's own cell, which the exact test, like the thesis,
// ignores; consProfile's shift does this); the first step lies a cell
// beyond the observer's.
//
// The price: arcs a sector wide hide fewer cells than midline samples
// (measured in TestConservative); a step walks a chord across a few
// patches instead of one read (the block engine shares the walk between
// its 16 lanes, whose chords are the same translated by whole cells). Most
// steps cannot raise the running maximum, and a patch's highest corner
// shows it without evaluating the surface (chordMax). A line stops early
// on the sector model's bound (consProfile).

// patchSlope returns, for each bilinear patch (px, py) of the grid (index
// py·max(W−1, 1)+px), the steepest edge difference in metres per cell over
// the patch and its eight neighbours: a bound on how fast the surface
// changes near the patch, built once per Model. It also builds consTop,
// each patch's highest corner plus 10⁻⁶ of its magnitude and 1 µm: no
// value segMin computes in the patch exceeds it (a bilinear patch is
// highest at a corner; the margin covers the rounding of segMin's float64
// sums, whose terms are at most a few times the corners' magnitude).
func (m *Model) patchSlope() []float32 {
	m.consOnce.Do(func() {
		W, H := m.t.Width, m.t.Height
		pw, ph := max(W-1, 1), max(H-1, 1)
		elev := m.t.Elev
		at := func(c, r int) float32 { return elev[min(r, H-1)*W+min(c, W-1)] }
		g, top := make([]float32, pw*ph), make([]float32, pw*ph)
		for y := range ph {
			for x := range pw {
				z00, z10, z01, z11 := at(x, y), at(x+1, y), at(x, y+1), at(x+1, y+1)
				g[y*pw+x] = max(abs32(z10-z00), abs32(z11-z01), abs32(z01-z00), abs32(z11-z10))
				hi := max(z00, z10, z01, z11)
				top[y*pw+x] = hi + 1e-6*max(abs32(z00), abs32(z10), abs32(z01), abs32(z11)) + 1e-6
			}
		}
		m.consTop = top
		q := make([]float32, pw*ph)
		for y := range ph {
			for x := range pw {
				var v float32
				for yy := max(y-1, 0); yy <= min(y+1, ph-1); yy++ {
					for xx := max(x-1, 0); xx <= min(x+1, pw-1); xx++ {
						v = max(v, g[yy*pw+xx])
					}
				}
				q[y*pw+x] = v
			}
		}
		m.consSlope = q
	})
	return m.consSlope
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// chordSeg is the part of a chord inside one bilinear patch: patch (px, py)
// for the chord's parameter t in [t0, t1], the chord starting at (x0, y0)
// = (px, py) + (u0, v0) in the patch's own coordinates.
type chordSeg struct {
	px, py         int
	t0, t1, u0, v0 float64
}

// chordPatches appends to segs the patches the segment from (x0,y0) to
// (x1,y1) crosses, in order (Amanatides–Woo), with the parameter interval
// in each, unclipped. The coordinates are in cells relative to an
// observer's cell, and so are the patches: the caller adds the observer's
// column and row (exactly: the chords of observers a whole number of cells
// apart are the same, bit for bit), and skips patches outside the grid (the
// grid's hull edges are patch edges, so this clips exactly).
func chordPatches(x0, y0, x1, y1 float64, segs []chordSeg) []chordSeg {
	dx, dy := x1-x0, y1-y0
	px, py := int(math.Floor(x0)), int(math.Floor(y0))
	stepX, stepY := 1, 1
	tMaxX, tMaxY, tDX, tDY := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	if dx > 0 {
		tMaxX, tDX = (float64(px+1)-x0)/dx, 1/dx
	} else if dx < 0 {
		stepX = -1
		tMaxX, tDX = (float64(px)-x0)/dx, -1/dx
	}
	if dy > 0 {
		tMaxY, tDY = (float64(py+1)-y0)/dy, 1/dy
	} else if dy < 0 {
		stepY = -1
		tMaxY, tDY = (float64(py)-y0)/dy, -1/dy
	}
	t := 0.0
	limit := int(math.Abs(dx)+math.Abs(dy)) + 4
	for range limit {
		te := min(tMaxX, tMaxY, 1)
		segs = append(segs, chordSeg{px, py, t, te, x0 - float64(px), y0 - float64(py)})
		if te >= 1 {
			break
		}
		t = te
		if tMaxX < tMaxY {
			px += stepX
			tMaxX += tDX
		} else {
			py += stepY
			tMaxY += tDY
		}
	}
	return segs
}

// segMin returns the least value of the bilinear surface along a chord's
// segment (direction dx, dy per unit t) in patch (px, py) of a W×H grid:
// the quadratic in t at the ends and, when it curves up, at its vertex.
func segMin(elev []float32, W, H, px, py int, sg *chordSeg, dx, dy float64) float64 {
	c1, r1 := min(px+1, W-1), min(py+1, H-1)
	z00, z10 := float64(elev[py*W+px]), float64(elev[py*W+c1])
	z01, z11 := float64(elev[r1*W+px]), float64(elev[r1*W+c1])
	bu, bv, cuv := z10-z00, z01-z00, z00-z10-z01+z11
	u0, v0, t, te := sg.u0, sg.v0, sg.t0, sg.t1
	// f(t) = z00 + bu·u + bv·v + cuv·u·v along u = u0+t·dx, v = v0+t·dy:
	// a quadratic a + b·t + c·t², c = cuv·dx·dy.
	// Every product is converted before it is added, so that no build fuses
	// a multiply-add and every CPU computes the same bits.
	f := func(u, v float64) float64 {
		return z00 + float64(bu*u) + float64(bv*v) + float64(float64(cuv*u)*v)
	}
	ua, va := u0+float64(t*dx), v0+float64(t*dy)
	ub, vb := u0+float64(te*dx), v0+float64(te*dy)
	lo := min(f(ua, va), f(ub, vb))
	if c := float64(float64(cuv*dx) * dy); c > 0 {
		b := float64(bu*dx) + float64(bv*dy) + float64(cuv*(float64(u0*dy)+float64(v0*dx)))
		if tm := -b / (2 * c); tm > t && tm < te {
			lo = min(lo, f(u0+float64(tm*dx), v0+float64(tm*dy)))
		}
	}
	return lo
}

// chordMax returns max(cur, the slope (z − drop − eye)·inv) for z the least
// value, less the slack 2·gmax·bulge per patch, of the bilinear surface
// through the cell centres along the segment from (x0,y0) to (x1,y1), in
// cells relative to cell (col,row), within the grid's hull [0, W−1]×[0,
// H−1]; cur when the segment misses the hull. z, drop (the Earth's
// curvature, 0 without) and eye are metres, inv is 1 / the step's distance
// in metres, bulge is cells of slack per cell of slope, gmax the patches'
// slope bounds (patchSlope) and cur a slope (metres per metre). segs are
// the segment's patches (chordPatches). It first tries each patch's highest corner
// (consTop) less its slack, which bounds z from above: rounding is
// monotone, so when such a bound's slope does not exceed cur neither does
// z's, and cur is the answer without evaluating the surface.
func (m *Model) chordMax(col, row int, x0, y0, x1, y1, bulge float64, gmax []float32, segs []chordSeg, drop, eye, inv, cur float32) float32 {
	W, H := m.t.Width, m.t.Height
	pw, ph := max(W-1, 1), max(H-1, 1)
	in := false
	for i := range segs {
		sg := &segs[i]
		qx, qy := sg.px+col, sg.py+row
		if qx < 0 || qy < 0 || qx >= pw || qy >= ph {
			continue
		}
		in = true
		if zb := float64(m.consTop[qy*pw+qx]) - float64(2*float64(gmax[qy*pw+qx])*bulge); (float32(zb)-drop-eye)*inv <= cur {
			return cur
		}
	}
	if !in {
		return cur
	}
	z := math.Inf(1)
	for i := range segs {
		sg := &segs[i]
		qx, qy := sg.px+col, sg.py+row
		if qx < 0 || qy < 0 || qx >= pw || qy >= ph {
			continue
		}
		z = min(z, segMin(m.t.Elev, W, H, qx, qy, sg, x1-x0, y1-y0)-float64(2*float64(gmax[qy*pw+qx])*bulge))
	}
	return max(cur, (float32(z)-drop-eye)*inv)
}

// consArc returns sector k's arc ends per metre of radius, in cells
// (consDir), and the slack per metre of radius, in cells (consSlack).
func (m *Model) consArc(k int) (ax, ay, bx, by, slack float64) {
	d := m.consDir[k]
	return float64(d[0]), float64(d[1]), float64(d[2]), float64(d[3]), m.consSlack
}

// walkConservative fills the profiles of all sectors for the observer at
// (col,row) from the arcs' lower bounds, as described above; every line is
// walked to its last step inside the grid.
func (w *Worker) walkConservative(col, row int) {
	m := w.m
	eye := m.t.Elev[row*m.t.Width+col] + float32(m.p.ObserverHeight)
	w.eye, w.col, w.row = eye, col, row
	w.tau = float32(m.p.TargetHeight+m.p.Margin) - eye
	for k := range m.p.Sectors {
		start := int(m.lineStart[k])
		n := m.steps(k, col, row)
		m.consProfile(k, col, row, eye, w.prof[start:start+n+1], w.suffixMax(k, col, row, n, eye), chunkShift, &w.segs)
		w.n[k] = int32(n)
	}
}

// consProfile fills prof (slots 0 … len(prof)−1 of sector k's line from the
// observer at (col,row), eye metres high) with the conservative running
// maximum slope. The slots are shifted by consShift[k] steps: slot j holds
// the maximum over steps i ≤ j − consShift[k], so that the sector model's
// slot rule (the last step half a step before the target's distance d) reads
// only steps ending half a cell diagonal before d, wherever it is applied
// (Worker, BlockWorker, their bounds and kernels).
//
// The line stops early as the sector model's does: suf[c] bounds, in metres
// above the eye (+Inf: no bound), the midline's samples at steps after
// c·2^shift, and a lower bound over the arc never exceeds the surface at
// the arc's midline point, which those samples bound; once the running
// maximum reaches suf's slope at a chunk's end, no later step can raise it
// and the remaining slots repeat it.
func (m *Model) consProfile(k, col, row int, eye float32, prof, suf []float32, shift uint, scratch *[]chordSeg) {
	gmax := m.patchSlope()
	ax, ay, bx, by, bulge := m.consArc(k)
	negInf := float32(math.Inf(-1))
	e := m.consShift[k]
	for j := 0; j < len(prof) && j <= e; j++ {
		prof[j] = negInf
	}
	cur := negInf
	segs := *scratch
	defer func() { *scratch = segs }()
	for i := 1; i+e < len(prof); i++ {
		d := float64(i) * m.secStep[k]
		// Converted: a product feeding a subtraction may not be fused.
		x0, y0, x1, y1 := float64(d*ax), float64(d*ay), float64(d*bx), float64(d*by)
		segs = chordPatches(x0, y0, x1, y1, segs[:0])
		var drop float32
		if m.secDrop != nil {
			drop = float32(m.secDrop[k] * float32(i*i))
		}
		cur = m.chordMax(col, row, x0, y0, x1, y1, float64(bulge*d), gmax, segs, drop, eye, float32(1/d), cur)
		prof[i+e] = cur
		if i&(1<<shift-1) == 0 && int(i>>shift) < len(suf) && cur >= suf[i>>shift]*float32(1/d) {
			for j := i + e + 1; j < len(prof); j++ {
				prof[j] = cur
			}
			return
		}
	}
}
