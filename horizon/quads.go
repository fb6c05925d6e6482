package horizon

import (
	"fmt"
	"math"
	"math/bits"
)

// Quad classes, as Classify writes them into a level pyramid. They equal
// quadpvs's Hidden, Visible and Unknown codes.
const (
	QuadHidden  uint8 = 0 // every terrain cell of the quad is hidden
	QuadVisible uint8 = 1 // every terrain cell of the quad is visible
	QuadMixed   uint8 = 2 // some cells visible, some hidden: see the four children
)

// Levels is a quad pyramid of a Width×Height grid: Levels[l] has one byte per
// quad of side 2^l cells, row-major over ⌈W/2^l⌉ columns × ⌈H/2^l⌉ rows
// (quad (x,y) of level l covers cells [x·2^l, (x+1)·2^l) × [y·2^l,
// (y+1)·2^l)), for l = 0 (the cells) to K = ⌈log2 max(W,H)⌉ (one quad). It
// is the layout of quadpvs's geometry (§3.2).
type Levels [][]uint8

// NewLevels returns a zeroed pyramid for a width×height grid.
func NewLevels(width, height int) Levels {
	k := bits.Len(uint(max(width, height) - 1))
	lv := make(Levels, k+1)
	for l := range lv {
		c, r := quadsAcross(width, height, l)
		lv[l] = make([]uint8, c*r)
	}
	return lv
}

// Mask marks the cells a PVS may contain: cells without data are hidden from
// every observer (nobody stands on, so nobody sees, a nodata cell). Its
// pyramid holds, per quad, QuadVisible when every cell has data, QuadHidden
// when none has, QuadMixed otherwise. A Mask is read-only and safe for
// concurrent use.
type Mask struct{ lv Levels }

// NewMask returns the mask of a width×height grid whose cell i (row-major)
// has no data when nodata[i]; nil when every cell has data.
func NewMask(width, height int, nodata []bool) *Mask {
	any := false
	for _, nd := range nodata {
		any = any || nd
	}
	if !any {
		return nil
	}
	lv := NewLevels(width, height)
	for i, nd := range nodata {
		if !nd {
			lv[0][i] = QuadVisible
		}
	}
	for l := 1; l < len(lv); l++ {
		cc, cr := quadsAcross(width, height, l-1)
		pc, pr := quadsAcross(width, height, l)
		for y := range pr {
			y0, y1 := 2*y, min(2*y+1, cr-1)
			for x := range pc {
				x0, x1 := 2*x, min(2*x+1, cc-1)
				ch := lv[l-1]
				a, b, c, d := ch[y0*cc+x0], ch[y0*cc+x1], ch[y1*cc+x0], ch[y1*cc+x1]
				s := QuadMixed
				if a == b && a == c && a == d && a != QuadMixed {
					s = a
				}
				lv[l][y*pc+x] = s
			}
		}
	}
	return &Mask{lv}
}

// Classify computes the visibility of every cell from an observer standing
// at cell (col,row) — the per-cell test of §3.1, as Viewshed applies it —
// but writes it as the quad pyramid of §3.2 (the predictive quadtree's
// statuses, for quadpvs.Encoder.EncodeLevels) into
// lv (made by NewLevels for the terrain's size): top-down, a quad is decided
// wholly hidden or wholly visible from bounds (its lowest and highest
// elevation, its nearest and farthest cell, the midlines that bracket its
// cells' azimuths), so that only quads along the boundaries of visible
// regions are looked at cell by cell. Every quad reached gets its class;
// the children of a QuadMixed quad are all reached; the classes below a
// decided quad are left as they were. A quad is QuadMixed exactly when its
// terrain cells differ, so the result is the canonical pyramid of the
// Viewshed bitmap (cells outside mask hidden, when mask is not nil; an
// observer on a cell outside mask sees nothing).
//
// Errors: ErrOutside when (col,row) is not a cell of the terrain.
func (w *Worker) Classify(col, row int, lv Levels, mask *Mask) error {
	m := w.m
	W, H := m.t.Width, m.t.Height
	if col < 0 || row < 0 || col >= W || row >= H {
		return fmt.Errorf("%w: (%d,%d) is not in the %d×%d grid", ErrOutside, col, row, W, H)
	}
	if len(lv) != len(m.zmin) {
		return fmt.Errorf("horizon: pyramid of %d levels for a %d×%d grid", len(lv), W, H)
	}
	top := len(lv) - 1
	if mask != nil && mask.lv[0][row*W+col] == QuadHidden {
		lv[top][0] = QuadHidden
		return nil
	}
	w.walk(col, row)
	var ml Levels
	if mask != nil {
		ml = mask.lv
	}
	w.quad(lv, ml, top, 0, 0)
	return nil
}

// minBoundLevel is the lowest level whose quads are first tried as a whole:
// below it, most quads on a visibility boundary are mixed and testing their
// cells costs less than the bound (BenchmarkClassify).
const minBoundLevel = 2

// quad classifies quad (l,x,y) and returns its class.
func (w *Worker) quad(lv, ml Levels, l, x, y int) uint8 {
	m := w.m
	qi := y*int(m.cols[l]) + x
	mk := QuadVisible
	if ml != nil {
		if mk = ml[l][qi]; mk == QuadHidden {
			lv[l][qi] = QuadHidden
			return QuadHidden
		}
	}
	var s uint8
	switch {
	case l == 0:
		s = w.cell(ml, x, y)
	case l == 1:
		s = w.quad2(lv[0], ml, x, y)
	default:
		s = QuadMixed
		if l >= minBoundLevel {
			s = w.bound(l, x, y)
		}
		if s == QuadVisible && mk == QuadMixed {
			s = QuadMixed
		}
		if s == QuadMixed {
			seen := uint8(0) // a bit per class of the children
			for k := range 4 {
				cx, cy := 2*x+k&1, 2*y+k>>1
				if cx<<(l-1) >= m.t.Width || cy<<(l-1) >= m.t.Height {
					continue // past the terrain's edge: a don't-care
				}
				seen |= 1 << w.quad(lv, ml, l-1, cx, cy)
			}
			s = combined[seen]
		}
	}
	lv[l][qi] = s
	return s
}

// quad2 classifies the cells of level-1 quad (x,y) one by one into cells
// (level 0 of the pyramid) and returns the quad's class.
func (w *Worker) quad2(cells []uint8, ml Levels, x, y int) uint8 {
	W, H := w.m.t.Width, w.m.t.Height
	seen := uint8(0)
	for k := range 4 {
		c, r := 2*x+k&1, 2*y+k>>1
		if c >= W || r >= H {
			continue
		}
		cs := w.cell(ml, c, r)
		cells[r*W+c] = cs
		seen |= 1 << cs
	}
	return combined[seen]
}

// combined is the class of a quad whose children's classes c set bits 1<<c
// of the index: one class when one bit is set, QuadMixed otherwise. Along
// visibility boundaries the children's classes are unpredictable, so they
// are combined by a table rather than branches (BenchmarkClassify: −4 to
// −8%, with cell's branch-free outcome).
var combined = [8]uint8{
	1 << QuadHidden:  QuadHidden,
	1 << QuadVisible: QuadVisible,
	1 << QuadMixed:   QuadMixed,
	3:                QuadMixed, 5: QuadMixed, 6: QuadMixed, 7: QuadMixed,
}

// cell classifies cell (c,r).
func (w *Worker) cell(ml Levels, c, r int) uint8 {
	m := w.m
	if ml != nil && ml[0][r*m.t.Width+c] == QuadHidden {
		return QuadHidden
	}
	dc, dr := c-w.col, r-w.row
	if dc == 0 && dr == 0 {
		return QuadVisible
	}
	if abs(dc) > m.rc || abs(dr) > m.rr {
		return QuadHidden
	}
	// The test's outcome is unpredictable along boundaries: a set, not a
	// branch.
	var s uint8
	if w.cellVisible(c, r) {
		s = QuadVisible
	}
	return s
}

// bound decides quad (l,x,y), l ≥ 1, from bounds: QuadHidden when even its
// highest target, at its nearest cell, lies below the lowest running maximum
// any of its cells is judged against; QuadVisible when even its lowest
// target, at its farthest cell, reaches the highest; QuadMixed otherwise
// (undecided). Every bound is taken on the same float32 values the per-cell
// test uses (offset table entries, profile slots), and each step of the
// per-cell test is monotonic in them, so a decided quad is decided the same
// way cell by cell.
func (w *Worker) bound(l, x, y int) uint8 {
	m := w.m
	W, H := m.t.Width, m.t.Height
	c0, r0 := x<<l, y<<l
	c1, r1 := min(c0+1<<l, W)-1, min(r0+1<<l, H)-1
	if c0 <= w.col && w.col <= c1 && r0 <= w.row && w.row <= r1 {
		return QuadMixed // holds the observer
	}
	rc, ok := m.rectBound(c0-w.col, c1-w.col, r0-w.row, r1-w.row)
	if !ok {
		return QuadHidden // wholly beyond MaxDistance
	}
	dNear, dFar, far := rc.dNear, rc.dFar, rc.far
	// Sector range covering every cell's bracketing midlines, padded by one.
	S := m.p.Sectors
	uLo, uHi := rc.uLo, rc.uHi
	kLo := int(math.Floor(float64(uLo)-0.5)) - 1
	kHi := int(math.Floor(float64(uHi)+0.5)) + 1
	if kHi-kLo+1 >= S {
		kLo, kHi = 0, S-1
	}
	qi := y*int(m.cols[l]) + x
	zHi := m.zmax[l][qi] + w.tau - rc.drpNear // the least drop
	zLo := m.zmin[l][qi] + w.tau - rc.drpFar  // the most
	invNear, invFar := rc.invNear, rc.invFar
	// Highest slope of a target: at the nearest cell when above the eye.
	sHi := zHi * invFar
	if zHi >= 0 {
		sHi = zHi * invNear
	}
	sLo := zLo * invNear
	if zLo >= 0 {
		sLo = zLo * invFar
	}
	// Hidden: every bracketing midline's running maximum at the nearest
	// distance exceeds sHi. Visible: every one at the farthest distance is
	// at most sLo. Stop as soon as neither can hold.
	hidden, visible := true, far
	for k := kLo; k <= kHi; k++ {
		kk := k
		if kk < 0 {
			kk += S
		} else if kk >= S {
			kk -= S
		}
		if hidden && w.prof[w.slot(kk, dNear)] <= sHi {
			hidden = false
		}
		if visible && w.prof[w.slot(kk, dFar)] > sLo {
			visible = false
		}
		if !hidden && !visible {
			return QuadMixed
		}
	}
	if hidden {
		return QuadHidden
	}
	return QuadVisible
}

// rectBound bounds the cells at a rectangle of offsets (cells) from an observer
// — or from any observer of a block to any cell of a quad: the nearest
// cell's distance (metres, from the offset table, as the per-cell test reads
// it), its inverse and its Earth-curvature drop (the least); the farthest's,
// and its drop (the most), when every cell lies within MaxDistance (far),
// else MaxDistance and no drop (such a rectangle is never wholly visible);
// and the lowest and highest azimuth of its corners in sector units (the
// north ray's straddlers unwrapped below 0).
type rectBound struct {
	dNear, invNear, drpNear float32
	dFar, invFar, drpFar    float32
	far                     bool
	uLo, uHi                float32
}

// rectBound returns the bounds of the cells at offsets dc0…dc1 × dr0…dr1 (the
// rectangle must not hold offset (0,0)), and false when every cell lies
// beyond MaxDistance.
func (m *Model) rectBound(dc0, dc1, dr0, dr1 int) (rc rectBound, ok bool) {
	nc, nr := clampZero(dc0, dc1), clampZero(dr0, dr1)
	if abs(nc) > m.rc || abs(nr) > m.rr {
		return rc, false
	}
	on := abs(nr)*(m.rc+1) + abs(nc)
	rc.dNear = m.offD[on]
	if rc.dNear > m.lim {
		return rc, false
	}
	rc.invNear = m.offInv[on]
	fc, fr := farther(dc0, dc1), farther(dr0, dr1)
	rc.far = abs(fc) <= m.rc && abs(fr) <= m.rr
	of := 0
	if rc.far {
		of = abs(fr)*(m.rc+1) + abs(fc)
		rc.dFar, rc.invFar = m.offD[of], m.offInv[of]
		rc.far = rc.dFar <= m.lim
	}
	if !rc.far {
		rc.dFar, rc.invFar = m.lim, m.invLim
	}
	if m.offDrp != nil {
		rc.drpNear = m.offDrp[on]
		if rc.far {
			rc.drpFar = m.offDrp[of]
		}
	}
	S := m.p.Sectors
	rc.uLo, rc.uHi = float32(math.Inf(1)), float32(math.Inf(-1))
	wrap := dc0 <= 0 && 0 <= dc1 && dr1 < 0 // straddles the north ray, azimuth 0
	for _, o := range [4][2]int{{dc0, dr0}, {dc1, dr0}, {dc0, dr1}, {dc1, dr1}} {
		var u float32
		if abs(o[0]) <= m.rc && abs(o[1]) <= m.rr {
			_, u = m.offset(o[0], o[1])
		} else {
			u = m.azU(o[0], o[1])
		}
		if wrap && u > float32(S)/2 {
			u -= float32(S)
		}
		rc.uLo, rc.uHi = min(rc.uLo, u), max(rc.uHi, u)
	}
	return rc, true
}

// clampZero returns the value of [a,b] nearest 0.
func clampZero(a, b int) int {
	if a > 0 {
		return a
	}
	if b < 0 {
		return b
	}
	return 0
}

// farther returns a or b, whichever is farther from 0.
func farther(a, b int) int {
	if abs(b) > abs(a) {
		return b
	}
	return a
}
