package horizon

import (
	"fmt"
	"math"
)

// From-region visibility (LOSRegion), beyond the thesis's point model
// (§3.1, which judges the samples alone): target cell T is hidden from
// observer cell O only when no position p in O's square sees any position
// q in T's square, the eye hObs metres above the bilinear surface at p,
// the top τ above it at q. A cell's square is the heightmap cell centred
// on its sample, Dx × Dy metres, clipped to the grid's hull — or, with
// Params.PVSCell = k > 1, the k×k heightmap cells of a PVS cell, the model
// then running on the PVS cells' grid over a lower surface between their
// centres (regionCoarse); "sees" is the
// exact test of the positions check (losref.PositionVisible): the segment
// between eye and top never passes below the surface, ignoring the surface
// within the heightmap cell centred on either end, as the point models
// ignore the two end cells.
//
// The argument: the conservative point model (conservative.go), run from
// O's centre at height Z_O to T's centre at height Z_T, with each arc
// thickened by the square and wider exclusions at both ends.
//
//   - Z_O and Z_T (Model.top): the highest eye and top in each square, the
//     surface's maximum over the square plus the height. The bilinear
//     surface is bilinear on each quarter of the square (the patches
//     split it), so the maximum is at one of the nine points where the
//     quarters' corners lie: the sample, the four edge midpoints, the four
//     corners (rounded up to float32).
//   - The ground: take p ∈ O, q ∈ T and the centres' segment point P =
//     (1−t)·O_c + t·T_c; the positions' segment point x = (1−t)·p + t·q
//     lies in the square of one cell centred on P. The conservative model
//     bounds the surface from below over the arc through P; this one over
//     the arc swept by that square. Up to the arc's bulge (the slack, as
//     there), that is the chord swept by the square, a hexagon. On each
//     patch the bilinear surface has no minimum inside a region that is
//     not on its boundary or at a patch corner (its critical point is a
//     saddle; along patch edges it is linear), so the least value over the
//     hexagon is the least over its boundary — the chord moved to the two
//     square corners farthest either side of it, and the squares' edges at
//     both ends — and over the samples inside it (regionChord). Where the
//     chord is short or nearly along an axis (the product of its extents
//     along the axes at most regionBoxArea), the bound is taken over the
//     hexagon's bounding rectangle instead, which contains it: on each
//     patch the bilinear surface is least over a rectangle at one of its
//     corners (regionBox).
//   - The heights: the positions' segment at x is (1−t)(surface(p)+hObs) +
//     t(surface(q)+τ) ≤ (1−t)·Z_O + t·Z_T, the centres' segment at P. So
//     where the centres' segment passes below that bound at P, every
//     positions' segment passes below the surface at its own x.
//   - The ends: x lies t·|q−p| from p, and |q−p| ≥ D − δ, D = |T_c − O_c|,
//     δ the square's diagonal. The model counts P only where d = t·D > e
//     and D − d > e with e = ½·diag + ½·δ (regionExclusion; the arcs nearer
//     the observer are skipped, Model.consFirst, and those nearer the
//     target by the slot shift of consMargin). Then t·|q−p| ≥ d(D − δ)/D,
//     which with D ≥ d + e exceeds ½·diag, so x lies outside the heightmap
//     cell centred on p (every point of that cell is within half its
//     diagonal of p), and likewise for q.
//   - Distance: cells are hidden by distance only when every pair of their
//     positions is farther than MaxDistance apart, i.e. their centres more
//     than MaxDistance + δ (the model's reach is widened by δ).
//
// Earth curvature is not part of the argument (the drop is measured from
// the observer's centre), so the model refuses it. The price of the
// region: raised eyes and tops, a ground lower by the square's sweep, and
// nothing hidden within 2e of the observer (its eight neighbours and the
// next ring), measured in TestRegion; and a step evaluates a rectangle
// over 4 patches near the observer, a hexagon's boundary and samples over
// 5 to 10 patches a few hundred cells out, against a chord's 1 to 3. The
// block kernels load each patch's corners once for all its entries
// (consSeg.grp). Measured (one worker, --budget 100MB, 200² windows of
// both real DEMs, 1024 sectors): 1.74× the conservative model's bake
// time under version 2, 0.97–1.02× under version 4.
//
// Version 3 changes which entries bound the samples inside a hexagon,
// not the bound's set of points: version 2 gave each sample four entries,
// one in each patch that shares it, so that one lies inside the grid
// whatever the observer's cell; version 3 gives it the one patch whose
// corner it is on the observer's side, which is inside the grid whenever
// the sample is (regionPoint), two on the observer's row or column. The
// least over the same samples, each evaluated in one patch with that
// patch's slack, is at least version 2's least over four: every cell
// version 2 hides stays hidden. Measured on the Total_Viewshed crop (316²
// at 80 m, S = 360, one worker, go run ./bench bake): 56.3 s against
// 64.7 s, the same hidden cells from 150 random observers on it and on
// 316² and 500² windows of both real DEMs at S = 1024 (4 more of 33.6
// million on the DSM). Version 2 stays selectable (Params.Version,
// --los region-v2).
//
// Version 4 (cut.go) bounds the ground along cuts across the wedge
// instead of over the swept squares, on heightmap cells; on PVS cells of
// more than one heightmap cell it bakes version 3's bytes. Version 5, the
// default (LOS.Default), takes the cuts on PVS cells too, over
// regionCoarse's lower surface (cut.go); on heightmap cells it bakes
// version 4's bytes. Versions 3 and 4 stay selectable (--los region-v3,
// region-v4).

// regionExclusion returns e, the distance in metres from either centre
// within which the region model ignores the surface: half the heightmap
// cell's diagonal plus half the region square's (the PVS cell's).
func (m *Model) regionExclusion() float64 {
	k := float64(max(m.p.PVSCell, 1))
	return 0.5*math.Hypot(m.t.Dx/k, m.t.Dy/k) + 0.5*regionDiagonal(m.t.Dx, m.t.Dy)
}

// regionDiagonal returns δ, the region square's diagonal in metres.
func regionDiagonal(dx, dy float64) float64 { return math.Hypot(dx, dy) }

// regionLines implements LOSRegion: the conservative model's walk over
// swept arcs (regionChord), with the region's exclusions.
type regionLines struct{ conservativeLines }

// setup builds the conservative model's tables with every arc at least e
// from the target (the slot shift of consMargin) and the first step of each
// sector whose arc lies more than e from the observer (Model.consFirst).
func (regionLines) setup(m *Model) {
	conservativeLines{}.setup(m)
	t, p := m.t, m.p
	m.regionVersion = p.ModelVersion()
	e := m.regionExclusion()
	width := 2 * math.Pi / float64(p.Sectors)
	m.consFirst = make([]int, p.Sectors)
	for k := range m.consShift {
		az := m.sectorAzimuth(k)
		m.consShift[k], m.consPull[k] = m.consMargin(k, max(e, exitMax(az, az+width, t.Dx, t.Dy)))
		// The first arc strictly beyond e, with the same allowance for
		// rounding as the slot rule's.
		i := 1
		for m.consDist(k, i) <= e*(1+1e-6)+1e-6 {
			i++
		}
		m.consFirst[k] = i
	}
	if m.regionVersion >= 5 || m.regionVersion == 4 && p.PVSCell <= 1 {
		m.consPad = m.roundingPad()
		m.cutTables()
	}
}

// walk fills w's profiles by the cuts (cut.go) under version 5, and
// version 4 on heightmap cells, else by the swept squares
// (conservativeLines.walk).
func (regionLines) walk(w *Worker, col, row int) {
	m := w.m
	if m.cut == nil {
		conservativeLines{}.walk(w, col, row)
		return
	}
	eye := w.observe(col, row)
	for k := range m.p.Sectors {
		start := int(m.lineStart[k])
		n := m.steps(k, col, row)
		w.suf = m.cutProfile(k, col, row, eye, w.prof[start:start+n+1], w.suf)
		w.n[k] = int32(n)
	}
}

// walkBlock fills the block's rows of sector k with the lanes' cut
// profiles (BlockWorker.cutWalk, the bits Worker.walk computes) under
// version 5, and version 4 on heightmap cells; else (the swept squares)
// walkConservative.
func (regionLines) walkBlock(bw *BlockWorker, k, pos, nmax, chunks int) int {
	if bw.m.cut == nil {
		bw.walkConservative(k, pos, nmax, chunks)
		return nmax
	}
	bw.cutWalk(k, pos, nmax)
	bw.n[k] = int32(nmax)
	return nmax
}

// regionTableSegs caps the region model's chord-segment table (32 bytes
// an entry, 96 MiB): a step has 4 to 6 entries near the observer (a
// rectangle's patches), 15 to 30 a few hundred cells out (a hexagon's
// segments and samples), so the table holds fewer steps than
// consTableSegs does. Steps past it are computed per block, which cost
// 13% of a bake of the Total_Viewshed crop (316², S = 360, no view
// distance) with 2 million entries of 48 bytes; 3 million of 32 bytes,
// the same memory, baked it 18% faster, 6 million 4% faster again.
const regionTableSegs = 3 << 20

// tableBytes: the conservative model's tables with the larger segment
// table, plus the tops and the cuts' transposed surface (grids of
// float32). The cuts build no patch or segment tables; their tables
// (20 bytes per sector and step: the interval and the first row holding
// the cut; a byte per cell for the screen) fit in what they would take.
func (regionLines) tableBytes(width, height, sectors int) int64 {
	return conservativeLines{}.tableBytes(width, height, sectors) + 32*(regionTableSegs-consTableSegs) + 8*int64(width)*int64(height)
}

// regionTops returns the region model's tops: the bilinear surface's
// maximum over each cell's square, clipped to the grid's hull, rounded up
// to float32, row-major like t.Elev.
func regionTops(t Terrain) []float32 {
	W, H := t.Width, t.Height
	e := t.Elev
	top := make([]float32, W*H)
	at := func(c, r int) float64 { return float64(e[r*W+c]) }
	for r := range H {
		for c := range W {
			z := at(c, r)
			// Edge midpoints and corners inside the hull: the means of
			// the two or four samples around them.
			for dr := -1; dr <= 1; dr++ {
				for dc := -1; dc <= 1; dc++ {
					c2, r2 := c+dc, r+dr
					if c2 < 0 || r2 < 0 || c2 >= W || r2 >= H || (dc == 0 && dr == 0) {
						continue
					}
					z = max(z, (at(c, r)+at(c2, r)+at(c, r2)+at(c2, r2))/4)
				}
			}
			top[r*W+c] = roundUp32(z)
		}
	}
	return top
}

// regionChord appends to segs[:0] the segments of step i's swept arc of
// sector k for an observer at cell (0,0) (above): the chord of consChord
// moved to the two corners of a cell's square farthest either side of it,
// the edges of the squares at the chord's ends, and every sample inside
// the hexagon they bound, as a point (a segment of length 0) in each of
// the four patches that share it, so that one inside the grid holds it.
// Coordinates are cells, as chordSegs's.
func (m *Model) regionChord(k, i int, segs []consSeg) []consSeg {
	dir := m.consDir[k]
	d := m.consDist(k, i)
	// Converted: a product feeding a subtraction may not be fused.
	x0, y0 := float64(d*float64(dir[0])), float64(d*float64(dir[1]))
	x1, y1 := float64(d*float64(dir[2])), float64(d*float64(dir[3]))
	const h = 0.5 // the square's half side, cells
	if math.Abs(x1-x0)*math.Abs(y1-y0) <= regionBoxArea {
		return regionBox(min(x0, x1)-h, min(y0, y1)-h, max(x0, x1)+h, max(y0, y1)+h, segs[:0])
	}
	nx, ny := y0-y1, x1-x0 // a normal of the chord
	sx, sy := h, h
	if nx < 0 {
		sx = -h
	}
	if ny < 0 {
		sy = -h
	}
	segs = chordSegs(x0+sx, y0+sy, x1+sx, y1+sy, segs[:0])
	segs = chordSegs(x0-sx, y0-sy, x1-sx, y1-sy, segs)
	// The squares' edges on the hexagon's boundary: at the chord's start
	// those whose outward normal n has n·(B−A) ≤ 0, at its end ≥ 0.
	dx, dy := x1-x0, y1-y0
	for end, e := range [2][2]float64{{x0, y0}, {x1, y1}} {
		cx, cy := e[0], e[1]
		ex, ey := dx, dy
		if end == 0 {
			ex, ey = -dx, -dy
		}
		if ex >= 0 { // the edge facing +x
			segs = chordSegs(cx+h, cy-h, cx+h, cy+h, segs)
		}
		if ex <= 0 {
			segs = chordSegs(cx-h, cy-h, cx-h, cy+h, segs)
		}
		if ey >= 0 {
			segs = chordSegs(cx-h, cy+h, cx+h, cy+h, segs)
		}
		if ey <= 0 {
			segs = chordSegs(cx-h, cy-h, cx+h, cy-h, segs)
		}
	}
	// The samples inside: (c,r) is in the hexagon when some t in [0,1]
	// puts the chord's point within h of it on both axes (with a little
	// to spare: a point outside only lowers the bound).
	const eps = 1e-6
	span := func(z, z0, dz float64) (lo, hi float64) {
		if dz == 0 {
			if math.Abs(z-z0) <= h+eps {
				return 0, 1
			}
			return 1, 0
		}
		a, b := (z-z0-h-eps)/dz, (z-z0+h+eps)/dz
		return min(a, b), max(a, b)
	}
	for r := int(math.Floor(min(y0, y1) - h)); r <= int(math.Ceil(max(y0, y1)+h)); r++ {
		for c := int(math.Floor(min(x0, x1) - h)); c <= int(math.Ceil(max(x0, x1)+h)); c++ {
			a0, a1 := span(float64(c), x0, dx)
			b0, b1 := span(float64(r), y0, dy)
			if max(a0, b0, 0) > min(a1, b1, 1) {
				continue
			}
			segs = m.regionPoint(c, r, segs)
		}
	}
	return groupSegs(segs)
}

// regionPoint appends sample (c, r) of a swept arc (cells, relative to the
// observer's cell) as a point in the patches that hold it. Version 2 puts
// it in all four patches that share it, so that one inside the grid holds
// it. Version 3 puts it in the one patch that has it as the corner facing
// the observer — patch (c−u, r−v) at (u, v), u = 1 where c > 0, else 0, v
// likewise — and in both such patches along an axis (c = 0 or r = 0):
// with the observer's absolute column C in [0, W−1], a sample at column
// X = C + c > C lies in the grid exactly when patch column X − 1 does
// (0 ≤ X − 1 ≤ W − 2, the patches' range), one at X < C exactly when
// patch column X does, and on the axis (X = C) one of X − 1 and X is a
// patch of the grid; rows likewise. So every sample of the grid is in the
// bound once (twice on the axes) instead of four times: the same samples,
// each evaluated in one patch whose slack (g2) covers it, so the bound is
// at least version 2's, a least over more entries of the same samples.
func (m *Model) regionPoint(c, r int, segs []consSeg) []consSeg {
	if m.regionVersion < 3 {
		for q := range 4 {
			u, v := float32(q&1), float32(q>>1)
			segs = append(segs, consSeg{px: int32(c - q&1), py: int32(r - q>>1), ua: u, va: v, ub: u, vb: v, pt: ptPoint})
		}
		return segs
	}
	us, vs := facing(c), facing(r)
	for _, u := range us {
		for _, v := range vs {
			segs = append(segs, consSeg{px: int32(c - u), py: int32(r - v), ua: float32(u), va: float32(v), ub: float32(u), vb: float32(v), pt: ptPoint})
		}
	}
	return segs
}

// facing returns the corner coordinates (0 or 1) of the patches, along
// one axis, that hold a sample at relative coordinate x as the corner
// facing the observer: {1} beyond it (x > 0), {0} before it, both on it.
func facing(x int) []int {
	switch {
	case x > 0:
		return facingBeyond
	case x < 0:
		return facingBefore
	}
	return facingBoth
}

// facing's answers, shared (read-only).
var (
	facingBefore = []int{0}
	facingBeyond = []int{1}
	facingBoth   = []int{0, 1}
)

// regionBoxArea is the largest area, in cells², by which regionChord lets
// the rectangle around a swept arc exceed the hexagon (the product of the
// chord's extents along the axes). Measured on 80² windows of both crops
// (40 observers each, every step a rectangle): 88.16% → 88.12% and 81.73%
// → 81.57% of the point model's hidden cells kept.
const regionBoxArea = 0.25

// regionBox appends to segs the rectangle [x0, x1] × [y0, y1] (cells,
// relative to the observer's cell) as one ptRect entry per patch it
// overlaps, in row-major order, each marked as a run of one (consSeg.grp).
// The corners are rounded to float32 within 10⁻⁷ cells, as chordSegs's.
func regionBox(x0, y0, x1, y1 float64, segs []consSeg) []consSeg {
	for py := int(math.Floor(y0)); float64(py) < y1; py++ {
		va, vb := float32(max(y0-float64(py), 0)), float32(min(y1-float64(py), 1))
		for px := int(math.Floor(x0)); float64(px) < x1; px++ {
			ua, ub := float32(max(x0-float64(px), 0)), float32(min(x1-float64(px), 1))
			segs = append(segs, consSeg{px: int32(px), py: int32(py), ua: ua, va: va, ub: ub, vb: vb, grp: 1, pt: ptRect})
		}
	}
	return segs
}

// groupSegs sorts segs by patch (row, then column; stable) and marks the
// runs of one patch (consSeg.grp). The least value over the segments does
// not depend on their order. A step's patches span a few cells, so a
// counting sort over their bounding box does (insertion sort past
// groupBox patches); the sorted copy goes through segs's spare capacity.
func groupSegs(segs []consSeg) []consSeg {
	n := len(segs)
	if n == 0 {
		return segs
	}
	x0, y0, x1, y1 := segs[0].px, segs[0].py, segs[0].px, segs[0].py
	for i := range segs {
		x0, x1 = min(x0, segs[i].px), max(x1, segs[i].px)
		y0, y1 = min(y0, segs[i].py), max(y1, segs[i].py)
	}
	w := int(x1-x0) + 1
	if w*(int(y1-y0)+1) > groupBox {
		for i := 1; i < n; i++ {
			s := segs[i]
			j := i
			for ; j > 0 && (segs[j-1].py > s.py || segs[j-1].py == s.py && segs[j-1].px > s.px); j-- {
				segs[j] = segs[j-1]
			}
			segs[j] = s
		}
	} else {
		var count [groupBox + 1]int32
		key := func(s *consSeg) int { return int(s.py-y0)*w + int(s.px-x0) }
		for i := range segs {
			count[key(&segs[i])+1]++
		}
		for b := 1; b <= w*(int(y1-y0)+1); b++ {
			count[b] += count[b-1]
		}
		segs = append(segs, segs...) // room for the sorted copy
		src, dst := segs[n:], segs[:n]
		for i := range src {
			b := key(&src[i])
			dst[count[b]] = src[i]
			count[b]++
		}
		segs = segs[:n]
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && segs[j].px == segs[i].px && segs[j].py == segs[i].py {
			segs[j].grp = 0
			j++
		}
		segs[i].grp = int32(j - i)
		i = j
	}
	return segs
}

// groupBox bounds the patches of the box groupSegs counts over.
const groupBox = 64

// PVSGrid returns the grid of PVS cells of side k heightmap cells over a
// width×height heightmap: ⌈width/k⌉ × ⌈height/k⌉ cells, PVS cell (C, R)
// covering heightmap cells kC … kC+k−1 and kR … kR+k−1 (fewer at the
// right and bottom edges), its centre at heightmap position (kC + (k−1)/2,
// kR + (k−1)/2).
func PVSGrid(width, height, k int) (cols, rows int) {
	k = max(k, 1)
	return (width + k - 1) / k, (height + k - 1) / k
}

// pvsGrid returns the terrain of t's PVS cells of side k (PVSGrid):
// spacing k·Dx × k·Dy metres, elevations to be filled. Errors: fewer than
// 2×2 PVS cells.
func pvsGrid(t Terrain, k int) (Terrain, error) {
	w, h := PVSGrid(t.Width, t.Height, k)
	if w < 2 || h < 2 {
		return Terrain{}, fmt.Errorf("%w: PVS cells of %d heightmap cells leave %d×%d of them on a %d×%d heightmap; want at least 2×2", ErrParams, k, w, h, t.Width, t.Height)
	}
	return Terrain{Width: w, Height: h, Dx: float64(k) * t.Dx, Dy: float64(k) * t.Dy}, nil
}

// regionCoarse returns the region model's tables on the grid of PVS cells
// of side k (PVSGrid) of heightmap t, row-major over that grid:
//
//   - top: the heightmap surface's maximum over each PVS cell's square (the
//     maximum of its heightmap cells' tops, regionTops);
//   - occ: a lower surface whose bilinear interpolation between PVS cell
//     centres never exceeds the heightmap surface: each value is the least
//     heightmap sample within one PVS cell of the centre along both axes,
//     so that the four corners of every patch between centres are at most
//     the surface anywhere in that patch. Along the grid's edges the window
//     reaches 1½ PVS cells along the edge: the heightmap's hull reaches up
//     to half a PVS cell beyond the centres' hull, and a positions' segment
//     there passes beside the point of the swept arc on the centres' hull,
//     which these edge values bound (region.go).
func regionCoarse(t Terrain, k int) (occ, top []float32) {
	W, H := t.Width, t.Height
	cw, ch := PVSGrid(W, H, k)
	fine := regionTops(t)
	top = make([]float32, cw*ch)
	for i := range top {
		top[i] = float32(math.Inf(-1))
	}
	for r := range H {
		for c := range W {
			i := (r/k)*cw + c/k
			top[i] = max(top[i], fine[r*W+c])
		}
	}
	// The window of PVS centre C along one axis of n heightmap samples
	// (cn PVS cells): samples ⌊cx − k⌋ … ⌈cx + k⌉, cx = kC + (k−1)/2, and
	// 1½ PVS cells along an edge.
	span := func(C, n, cn int, edge bool) (lo, hi int) {
		cx := float64(k*C) + float64(k-1)/2
		reach := float64(k)
		if edge {
			reach = 1.5 * float64(k)
		}
		return max(int(math.Floor(cx-reach)), 0), min(int(math.Ceil(cx+reach)), n-1)
	}
	// Rows first: per heightmap row, the least sample of each PVS
	// column's window, both the plain and the edge window.
	plain, wide := make([]float32, H*cw), make([]float32, H*cw)
	for r := range H {
		row := t.Elev[r*W : (r+1)*W]
		for C := range cw {
			for e, dst := range [2][]float32{plain, wide} {
				lo, hi := span(C, W, cw, e == 1)
				v := row[lo]
				for _, z := range row[lo+1 : hi+1] {
					v = min(v, z)
				}
				dst[r*cw+C] = v
			}
		}
	}
	occ = make([]float32, cw*ch)
	for R := range ch {
		for C := range cw {
			// Edge columns reach further along the column (rows), edge
			// rows further along the row (the wide row minima).
			src := plain
			if R == 0 || R == ch-1 {
				src = wide
			}
			lo, hi := span(R, H, ch, C == 0 || C == cw-1)
			v := src[lo*cw+C]
			for r := lo + 1; r <= hi; r++ {
				v = min(v, src[r*cw+C])
			}
			occ[R*cw+C] = v
		}
	}
	return occ, top
}
