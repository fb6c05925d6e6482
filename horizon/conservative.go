package horizon

import (
	"math"
	"unsafe"
)

// Conservative visibility (LOSConservative): a target is hidden only
// when the exact line of sight to it — the segment from the observer's eye
// to the target's top over the bilinear surface through the cell centres —
// is blocked.
//
// The argument. Midline k's profile is built not from samples on the
// midline but from lower bounds zlow(d) of the surface over the arc at the
// step's distance d across the wedge from midline k to midline k+1. A
// target at azimuth u and distance D is judged against the profile of the
// lower of the two midlines bracketing u, whose wedge holds u (Model.k1;
// the sector model takes the lower of both profiles, which with these
// profiles would be valid too, but looser). If the target's slope is below
// a step's (zlow(d)−eye)/d for some step at d < D, then where the true ray crosses
// that arc — a point P at distance d on azimuth u — the ray's height is
// below zlow(d), and zlow(d) ≤ surface(P): the ray passes under the
// surface and the target is hidden. zlow(d) is the least value of the
// surface along the arc's chord — patch by patch, where the bilinear
// surface is a quadratic in the chord's parameter (segLow) — less, for
// each patch, twice its steepest edge difference (the surface's slope
// bound there and in its neighbours) times the arc's bulge beyond the
// chord (its sagitta, in cells): every arc point lies within the sagitta
// of a chord point. Earth curvature lowers zlow by the same drop as the
// true point. A step counts for a target only where the true ray crosses
// its arc outside the target's own cell, which the exact test, like the
// thesis, ignores: the sector model's slot rule counts the steps at least
// half a step before the target's distance, and the ray leaves the
// target's cell within half a step along the midline's own direction, but
// within a little more at the wedge's other directions. So each arc lies
// consPull[k] metres nearer than its step (consMargin; at most 0.003 of a
// step at S = 1024 on square cells), or, where that would not do (cells far from
// square), the slots are shifted by whole steps (consShift). The first
// arc lies outside the observer's own cell likewise.
//
// Rounding. The chord's geometry is computed in float64 and rounded to
// float32 per patch (chordSegs: within 10⁻⁷ cells of the chord, which the
// slack's 10⁻⁶ cells per metre of radius covers); the quadratic is
// evaluated in float32, every operation rounded on its own so that every
// CPU and the vector kernel compute the same bits. Its error is below
// 3·10⁻⁶ of the corners' magnitude; zlow subtracts consPad, 8·10⁻⁶ of the
// terrain's largest magnitude plus 1 µm, which also covers the slopes'
// float32 rounding (so the bound holds, with millimetres to spare on real
// terrain, through the cell test's comparison); the slack is rounded up
// (consBulge).
//
// The price: arcs a sector wide hide fewer cells than midline samples
// (measured in TestConservative); a step evaluates a chord across a few
// patches instead of one sample. The block engine shares each step's
// chord between its 16 lanes, whose chords are the same translated by
// whole cells, and evaluates the lanes in vectors (consLanes16); the
// chords of the first steps of every sector, which every line walks, are
// a table built once (buildSegTable). Most steps cannot raise the running
// maximum: a patch's highest corner shows it without evaluating the
// surface (chordLow), and the band's height skips whole chunks of steps
// (BlockWorker.walkConservative). A line stops early on the sector model's
// bound (consProfile). Measured (BenchmarkBlockConservative, the
// benchmark's windows, S = 1024): about 2.1× the sector model's block
// time, from 7.8× with one lane at a time in float64.

// consBorder is the border, in patches, of the conservative mode's patch
// tables (consG2, consTop): the block engine reads 4×4 windows of them at
// lane 0's patch, which may lie up to BlockSide−1 patches outside the grid.
const consBorder = BlockSide

// patchTables builds, once per Model, the conservative mode's patch tables
// over the bilinear patches (px, py) of the grid, px < pw = max(W−1, 1),
// py < ph = max(H−1, 1), each padded by consBorder patches (zeros) and
// row-major over pw+2·consBorder columns (consIndex):
//
//   - consG2: twice the steepest edge difference in metres per cell over
//     the patch and its eight neighbours, a bound on how fast the surface
//     changes near the patch;
//   - consTop: the patch's highest corner, which no lower bound chordLow
//     computes in the patch exceeds (a bilinear patch is highest at a
//     corner; chordLow subtracts consPad, which exceeds segLow's rounding);
//   - consBot: the patch's lowest corner less consPad, in metres, rounded
//     to float32, which no value segLow computes in the patch is below (it
//     is lowest at a corner too; −Inf where the grid is one sample wide or
//     high): the AVX2 kernel skips a patch whose consBot cannot lower a
//     lane's bound.
//
// and consPad, the rounding allowance in metres: 8·10⁻⁶ of the terrain's
// largest magnitude (elevation or eye) plus 1 µm; and per sector
// consStopPad, the early stops' allowance in metres for the arcs' pull-in
// (the steepest slope times the pull and the directions' rounding).
func (m *Model) patchTables() {
	m.consOnce.Do(func() {
		W, H := m.t.Width, m.t.Height
		pw, ph := max(W-1, 1), max(H-1, 1)
		elev := m.occ
		m.consPad = m.roundingPad()
		at := func(c, r int) float32 { return elev[min(r, H-1)*W+min(c, W-1)] }
		g := make([]float32, pw*ph)
		gw := pw + 2*consBorder
		top := make([]float32, gw*(ph+2*consBorder))
		for y := range ph {
			for x := range pw {
				z00, z10, z01, z11 := at(x, y), at(x+1, y), at(x, y+1), at(x+1, y+1)
				g[y*pw+x] = max(abs32(z10-z00), abs32(z11-z01), abs32(z01-z00), abs32(z11-z10))
				top[m.consIndex(x, y)] = max(z00, z10, z01, z11)
			}
		}
		// consG2 and consBot in one array: the AVX2 kernel finds a
		// patch's consBot 4·len(consG2) bytes after its consG2.
		q := make([]float32, 2*len(top))
		q, bot := q[:len(top):len(top)], q[len(top):]
		for i := range bot {
			bot[i] = float32(math.Inf(-1))
		}
		if W >= 2 && H >= 2 { // else a patch's corners are not all samples
			for y := range ph {
				for x := range pw {
					bot[m.consIndex(x, y)] = min(at(x, y), at(x+1, y), at(x, y+1), at(x+1, y+1)) - m.consPad
				}
			}
		}
		for y := range ph {
			for x := range pw {
				var v float32
				for yy := max(y-1, 0); yy <= min(y+1, ph-1); yy++ {
					for xx := max(x-1, 0); xx <= min(x+1, pw-1); xx++ {
						v = max(v, g[yy*pw+xx])
					}
				}
				q[m.consIndex(x, y)] = 2 * v
			}
		}
		m.consG2, m.consTop, m.consBot, m.consGW = q, top, bot, gw
		// The early stops bound the surface at step i's midline sample; an
		// arc's midline point lies consPull nearer, and within 10⁻⁶ cells
		// per step of the sample for the directions' rounding: the surface
		// there is at most max(g2) per cell of distance higher.
		var g2max float64
		for _, v := range q {
			g2max = max(g2max, float64(v))
		}
		m.consStopPad = make([]float32, m.p.Sectors)
		for k := range m.consStopPad {
			cells := float64(m.consPull[k])/min(m.t.Dx, m.t.Dy) + 1e-6*float64(m.secMax[k]+1)
			m.consStopPad[k] = roundUp32(g2max * cells)
		}
	})
}

// roundUp32 returns v rounded up to a float32.
func roundUp32(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// exitMax returns the largest distance, in metres, from a cell's centre to
// its edge along an azimuth θ in [a0, a1] (radians clockwise from grid
// north, a1 − a0 < π/2; cells dx × dy metres): min(½dx/|sin θ|, ½dy/|cos
// θ|), which is largest at an end of the range or at a direction through
// a corner of the cell (|tan θ| = dx/dy).
func exitMax(a0, a1, dx, dy float64) float64 {
	t := func(a float64) float64 { return min(0.5*dx/math.Abs(math.Sin(a)), 0.5*dy/math.Abs(math.Cos(a))) }
	best := max(t(a0), t(a1))
	corner := math.Atan2(dx, dy)
	for q := -2; q <= 6; q++ {
		for _, c := range [2]float64{float64(q)*math.Pi + corner, float64(q)*math.Pi - corner} {
			if c > a0 && c < a1 {
				best = max(best, t(c))
			}
		}
	}
	return best
}

// consMargin returns sector k's slot shift in steps and arc pull-in in
// metres for a wedge whose rays leave a cell within exit metres of its
// centre (exitMax). A step i counts for a target at distance D when i ≤
// ⌊D/s − ½⌋ (s the step, metres; the slot rule), so D − i·s ≥ s/2 less
// the rounding of the rule's float32 arithmetic, 2.4·10⁻⁷ of D/s, which
// the allowance 4·10⁻⁷·(steps+2)·s covers. The arc must lie more than exit
// from the target: pulled in by need = exit + allowance − s/2 when that is
// at most s/4 (so that the first arc, 0.75·s out, stays outside the
// observer's cell as well), else shifted by ⌈need/s⌉ steps.
func (m *Model) consMargin(k int, exit float64) (shift int, pull float32) {
	s := m.secStep[k]
	need := exit + 4e-7*float64(m.secMax[k]+2)*s - marginSteps*s
	switch {
	case need <= 0:
		return 0, 0
	case need <= s/4:
		return 0, roundUp32(need)
	default:
		return int(math.Ceil(need / s)), 0
	}
}

// segTable builds, once per Model, the chord-segment table the block
// engine reads (buildSegTable), after the patch tables. Single viewsheds
// (Worker) compute their chords instead: the table costs about as much as
// a few viewsheds.
func (m *Model) segTable() {
	m.patchTables()
	m.segOnce.Do(m.buildSegTable)
}

// consSegCap returns the chord-segment table's cap in segments:
// consTableSegs, or regionTableSegs under LOSRegion, whose steps have
// several times more.
func (m *Model) consSegCap() int {
	if m.consFirst != nil {
		return regionTableSegs
	}
	return consTableSegs
}

// consTableSegs caps the chord-segment table at this many segments (32
// bytes each, 24 MiB): the steps nearest the observers, which every line
// walks, are looked up; farther ones are computed (consStep).
const consTableSegs = 3 << 18

// buildSegTable fills the chord-segment table of steps 1 … consL of every
// sector, sector-major (a line's steps are read in order): step i of
// sector k holds consTab[consOff[k·consL+i−1] : consOff[k·consL+i]], empty
// past the sector's last step. consL is the last step whose segments, over
// all sectors, fit in consTableSegs. consSc[k·consL+i] holds the step's
// scalars (consScalars: bulge, drop, inv), which consStep and the
// kernels that walk several steps at once (kernelSet.consRun) read.
func (m *Model) buildSegTable() {
	S := m.p.Sectors
	var scratch []consSeg
	// Count step by step to find consL, then fill sector by sector.
	total, L := 0, 0
	for i := 1; ; i++ {
		n := 0
		for k := range S {
			if i <= int(m.secMax[k]) {
				scratch = m.consChord(k, i, scratch)
				n += len(scratch)
			}
		}
		if n == 0 || total+n > m.consSegCap() {
			break
		}
		total, L = total+n, i
	}
	tab, off, sc := make([]consSeg, 0, total), make([]int32, S*L+1), make([][3]float32, S*L+1)
	for k := range S {
		for i := 1; i <= L; i++ {
			if i <= int(m.secMax[k]) {
				scratch = m.consChord(k, i, scratch)
				tab = append(tab, scratch...)
			}
			off[k*L+i] = int32(len(tab))
			b, d, v := m.consScalars(k, i)
			sc[k*L+i] = [3]float32{b, d, v}
		}
	}
	m.consTab, m.consOff, m.consSc, m.consL = tab, off, sc, L
	m.consFar = int64(len(tab))*int64(unsafe.Sizeof(consSeg{})) > farTableBytes
}

// farTableBytes: a segment table larger than this streams from memory,
// not from the last-level cache (32 MiB on an AMD EPYC of the Zen 5
// generation), and the step kernels fetch its segments 1.5 KiB ahead
// instead of 0.5 KiB (STEPHEAD in cons_amd64.s). Measured on that CPU, in
// the region bake of the Total_Viewshed crop (S = 360, a 100 MB table)
// the step's perf samples fell to 0.83× (16,455 → 13,720; whole bakes
// there vary by up to 10% run to run); where the table fits (2 km
// windows, the conservative model's 18 MB on that crop) the deeper fetch
// was 1–3% slower, within that spread. A variable so that tests run both
// fetches.
var farTableBytes int64 = 32 << 20

// conservativeLines implements LOSConservative (above): profiles from
// lower bounds of the surface over the arcs between two midlines, and a
// cell reads its wedge's first profile alone (k1 = 0).
type conservativeLines struct{}

// setup builds the per-sector tables: each sector's slot shift and arc
// pull-in (consMargin), its arc's ends per metre of radius, and the slack
// per metre of radius (consBulge). The patch and segment tables are built
// on first use (patchTables, segTable).
func (conservativeLines) setup(m *Model) {
	t, p := m.t, m.p
	m.k1 = 0 // a cell's wedge is bounded by its first bracketing profile alone
	m.consShift = make([]int, p.Sectors)
	m.consPull = make([]float32, p.Sectors)
	m.consDir = make([][4]float32, p.Sectors)
	width := 2 * math.Pi / float64(p.Sectors)
	// The arc's bulge beyond its chord (sagitta) plus the directions'
	// float32 rounding, rounded to float32 itself so that every build
	// computes the same.
	cell := min(t.Dx, t.Dy)
	m.consSlack = float64(float32((1-math.Cos(width/2))/cell + 1e-6/cell))
	for k := range m.consShift {
		az := m.sectorAzimuth(k)
		m.consShift[k], m.consPull[k] = m.consMargin(k, exitMax(az, az+width, t.Dx, t.Dy))
		// Rounded to float32: the math library's last bits may differ
		// between builds (fused multiply-adds), float32 values do not
		// (consProfile widens its slack by the rounding).
		m.consDir[k] = [4]float32{float32(math.Sin(az) / t.Dx), float32(-math.Cos(az) / t.Dy),
			float32(math.Sin(az+width) / t.Dx), float32(-math.Cos(az+width) / t.Dy)}
	}
}

// tableBytes: the padded patch tables, their build's scratch and the
// chord-segment table with its offsets and scalars.
func (conservativeLines) tableBytes(width, height, sectors int) int64 {
	pw, ph := int64(max(width-1, 1)), int64(max(height-1, 1))
	padded := (pw + 2*consBorder) * (ph + 2*consBorder)
	return 12*padded + 4*pw*ph + 32*consTableSegs + 16*int64(sectors)*int64(max(width, height)+1)
}

// walkBlock fills the block's rows by BlockWorker.walkConservative, every
// lane to the block's last step: n = nmax.
func (conservativeLines) walkBlock(bw *BlockWorker, k, pos, nmax, chunks int) int {
	bw.walkConservative(k, pos, nmax, chunks)
	return nmax
}

// consIndex returns patch (px, py)'s index in the padded patch tables;
// px, py ≥ −consBorder.
func (m *Model) consIndex(px, py int) int {
	return (py+consBorder)*(max(m.t.Width-1, 1)+2*consBorder) + px + consBorder
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// consSeg is the part of one step's chord inside one bilinear patch: patch
// (px, py) relative to the observer's cell and the segment from (ua, va)
// to (ub, vb) in the patch's own coordinates (cells, 0 … 1 up to
// rounding); segLow derives du = ub − ua, dv = vb − va and the
// quadratic's shared terms dd = du·dv and w = ua·dv + va·du from them in
// float32, as every kernel does (32 bytes an entry: the table's steps
// stream through the cache). Observers a whole number of cells apart
// share these values bit for bit.
//
// The vector kernels load a patch's corners once for a run of segments in
// the same patch: grp is the run's length on its first segment and 0 on
// the others (chordSegs's segments are runs of one; regionChord's are
// sorted by patch). pt marks entries that are not segments: ptPoint, the
// point (ua, va); ptRect, the rectangle from corner (ua, va) to corner
// (ub, vb), whose least value is at one of its four corners.
type consSeg struct {
	ua, va, ub, vb float32
	px, py         int32
	grp, pt        int32
}

// The kinds of consSeg entries (consSeg.pt).
const (
	ptSegment = 0
	ptPoint   = 1
	ptRect    = 2
)

// chordSegs appends to segs the patches the segment from (x0,y0) to
// (x1,y1) crosses, in order (Amanatides–Woo), with the segment's part in
// each, unclipped. The coordinates are in cells relative to an observer's
// cell, and so are the patches: the caller adds the observer's column and
// row, and skips patches outside the grid (the grid's hull edges are patch
// edges, so this clips exactly). The geometry is computed in float64 and
// rounded to float32 per patch: the rounded ends lie within 10⁻⁷ cells of
// the chord, which the slack's 10⁻⁶ cells per metre of radius covers.
func chordSegs(x0, y0, x1, y1 float64, segs []consSeg) []consSeg {
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
		// Converted: a product feeding an addition may not be fused.
		u0, v0 := x0-float64(px), y0-float64(py)
		ua, va := float32(u0+float64(t*dx)), float32(v0+float64(t*dy))
		ub, vb := float32(u0+float64(te*dx)), float32(v0+float64(te*dy))
		segs = append(segs, consSeg{px: int32(px), py: int32(py), ua: ua, va: va, ub: ub, vb: vb, grp: 1})
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

// segLow returns the least value of the bilinear patch with corners z00
// (the patch's own cell), z10 (right), z01 (below), z11 along segment s:
// with u = ua + σ·du, v = va + σ·dv, the surface z00 + bu·u + bv·v +
// cuv·u·v is a quadratic in σ ∈ [0, 1], least at an end or, when it curves
// up (C = cuv·dd > 0), at its vertex σ = −B / 2C, B = bu·du + bv·dv +
// cuv·w. Every float32 operation is rounded on its own (no fused
// multiply-add) in this order, which the vector kernel repeats. The result
// is within 3·10⁻⁶ of the corners' largest magnitude of the exact least
// value over a segment within 10⁻⁷ cells of s (consPad covers it).
func segLow(z00, z10, z01, z11 float32, s *consSeg) float32 {
	bu, bv := z10-z00, z01-z00
	cuv := z00 - z10 - z01 + z11
	f := func(u, v float32) float32 {
		return z00 + float32(bu*u) + float32(bv*v) + float32(float32(cuv*u)*v)
	}
	lo := f(s.ua, s.va)
	if s.pt == ptRect { // a bilinear patch is least over a rectangle at a corner
		return min(lo, f(s.ub, s.va), f(s.ub, s.vb), f(s.ua, s.vb))
	}
	if fb := f(s.ub, s.vb); fb < lo {
		lo = fb
	}
	du, dv := s.ub-s.ua, s.vb-s.va
	dd := du * dv
	if c := cuv * dd; c > 0 {
		w := float32(s.ua*dv) + float32(s.va*du)
		b := float32(bu*du) + float32(bv*dv) + float32(cuv*w)
		// σ = −sm; sm ∈ (−1, 0) keeps the vertex inside the segment.
		if sm := b / (c + c); sm > -1 && sm < 0 {
			if fm := f(s.ua-float32(sm*du), s.va-float32(sm*dv)); fm < lo {
				lo = fm
			}
		}
	}
	return lo
}

// chordLow returns the step's lower bound z of the surface over the arc,
// in metres, for the observer at cell (col,row): over the segments segs of
// the chord inside the grid's hull, the least segLow less the patch's slack
// g2·bulge and consPad; in reports whether any segment lies inside. When
// the slope (z − drop − eye)·inv cannot exceed cur — some patch's consTop
// already gives no more — it returns in = false without evaluating the
// surface (rounding is monotone and segLow exceeds consTop by less than
// consPad, so z is at most consTop).
func (m *Model) chordLow(col, row int, segs []consSeg, bulge, drop, eye, inv, cur float32) (z float32, in bool) {
	W, H := m.t.Width, m.t.Height
	pw, ph := max(W-1, 1), max(H-1, 1)
	g2, top, pad := m.consG2, m.consTop, m.consPad
	for i := range segs {
		qx, qy := int(segs[i].px)+col, int(segs[i].py)+row
		if qx < 0 || qy < 0 || qx >= pw || qy >= ph {
			continue
		}
		in = true
		q := m.consIndex(qx, qy)
		if (top[q]-drop-eye)*inv <= cur {
			return 0, false
		}
	}
	if !in {
		return 0, false
	}
	elev := m.occ
	z = float32(math.Inf(1))
	for i := range segs {
		s := &segs[i]
		qx, qy := int(s.px)+col, int(s.py)+row
		if qx < 0 || qy < 0 || qx >= pw || qy >= ph {
			continue
		}
		c1, r1 := min(qx+1, W-1), min(qy+1, H-1)
		lo := segLow(elev[qy*W+qx], elev[qy*W+c1], elev[r1*W+qx], elev[r1*W+c1], s)
		q := m.consIndex(qx, qy)
		if zs := lo - float32(g2[q]*bulge) - pad; zs < z {
			z = zs
		}
	}
	return z, true
}

// consBulge returns the slack in cells per cell of slope at step i of
// sector k: the sagitta of an arc at the step's distance (at least the
// pulled-in arc's, consDist), rounded up so that the float32 product with
// a patch's g2 is never below the exact one.
func (m *Model) consBulge(k, i int) float32 {
	return float32(m.consSlack * float64(i) * m.secStep[k] * (1 + 0x1p-18))
}

// consStep returns step i of sector k's chord segments for an observer at
// cell (0,0) from the segment table (segTable, which must be built) when
// it holds the step, else computed into *scratch (consChord), and the
// step's scalars (consScalars). The segments are read-only.
func (m *Model) consStep(k, i int, scratch *[]consSeg) (segs []consSeg, bulge, drop, inv float32) {
	if i <= m.consL {
		o := k*m.consL + i
		sc := &m.consSc[o]
		return m.consTab[m.consOff[o-1]:m.consOff[o]], sc[0], sc[1], sc[2]
	}
	*scratch = m.consChord(k, i, *scratch)
	bulge, drop, inv = m.consScalars(k, i)
	return *scratch, bulge, drop, inv
}

// consDist returns the distance in metres of step i's arc of sector k: the
// step's, less the pull-in (consMargin).
func (m *Model) consDist(k, i int) float64 {
	return float64(i)*m.secStep[k] - float64(m.consPull[k])
}

// consChord appends to segs[:0] the segments (chordSegs) of step i's
// chord of sector k for an observer at cell (0,0): the arc at distance d =
// consDist(k, i) metres from midline k to midline k+1.
func (m *Model) consChord(k, i int, segs []consSeg) []consSeg {
	if m.consFirst != nil {
		return m.regionChord(k, i, segs)
	}
	dir := m.consDir[k]
	d := m.consDist(k, i)
	// Converted: a product feeding a subtraction may not be fused.
	x0, y0 := float64(d*float64(dir[0])), float64(d*float64(dir[1]))
	x1, y1 := float64(d*float64(dir[2])), float64(d*float64(dir[3]))
	return chordSegs(x0, y0, x1, y1, segs[:0])
}

// consScalars returns step i of sector k's slack per cell of slope
// (consBulge), Earth-curvature drop in metres (the step's, at least the
// arc's) and 1/d, d = consDist(k, i) metres.
func (m *Model) consScalars(k, i int) (bulge, drop, inv float32) {
	if m.secDrop != nil {
		drop = float32(m.secDrop[k] * float32(i*i))
	}
	return m.consBulge(k, i), drop, float32(1 / m.consDist(k, i))
}

// walk fills w's profiles of all sectors for the observer at (col,row)
// from the arcs' lower bounds, as described above; every line is walked to
// its last step inside the grid.
func (conservativeLines) walk(w *Worker, col, row int) {
	m := w.m
	eye := w.observe(col, row)
	for k := range m.p.Sectors {
		start := int(m.lineStart[k])
		n := m.steps(k, col, row)
		m.consProfile(k, col, row, eye, w.prof[start:start+n+1], w.suffixMax(k, col, row, n, eye), chunkShift, &w.segs)
		w.n[k] = int32(n)
	}
}

// consProfile fills prof (slots 0 … len(prof)−1 of sector k's line from the
// observer at (col,row), eye metres high) with the conservative running
// maximum slope. The slots are shifted by consShift[k] steps (usually 0):
// slot j holds the maximum over steps i ≤ j − consShift[k], so that the
// sector model's slot rule (the last step half a step before the target's
// distance d), wherever it is applied (Worker, BlockWorker, their bounds and
// kernels), reads only arcs that the ray crosses outside the target's cell
// (consMargin).
//
// The line stops early as the sector model's does: suf[c] bounds, in metres
// above the eye (+Inf: no bound), the midline's samples at steps after
// c·2^shift, and a lower bound over the arc never exceeds the surface at
// the arc's midline point, which lies within consStopPad[k] metres of
// those samples' bound; once the running maximum reaches that slope at a
// chunk's end, no later step can raise it and the remaining slots repeat
// it.
func (m *Model) consProfile(k, col, row int, eye float32, prof, suf []float32, shift uint, scratch *[]consSeg) {
	m.patchTables()
	negInf := float32(math.Inf(-1))
	e := m.consShift[k]
	for j := 0; j < len(prof) && j <= e; j++ {
		prof[j] = negInf
	}
	cur := negInf
	first := 1
	if m.consFirst != nil {
		first = m.consFirst[k]
	}
	for i := 1; i+e < len(prof); i++ {
		if i < first { // an arc the region model does not count
			prof[i+e] = cur
			continue
		}
		*scratch = m.consChord(k, i, *scratch)
		segs := *scratch
		bulge, drop, inv := m.consScalars(k, i)
		if z, in := m.chordLow(col, row, segs, bulge, drop, eye, inv, cur); in {
			if s := (z - drop - eye) * inv; s > cur {
				cur = s
			}
		}
		prof[i+e] = cur
		if i&(1<<shift-1) == 0 && int(i>>shift) < len(suf) && cur >= (suf[i>>shift]+m.consStopPad[k])*inv {
			for j := i + e + 1; j < len(prof); j++ {
				prof[j] = cur
			}
			return
		}
	}
}

// roundingPad returns consPad: 8·10⁻⁶ of the terrain's largest magnitude
// (surface, tops, and the heights above them) plus 1 µm, in metres.
func (m *Model) roundingPad() float32 {
	var mag float32
	for i, z := range m.occ {
		mag = max(mag, abs32(z), abs32(m.top[i]))
	}
	mag += float32(m.p.ObserverHeight + m.p.TargetHeight + math.Abs(m.p.Margin))
	return float32(8e-6*float64(mag) + 1e-6)
}
