package horizon

import (
	"fmt"
	"math"
	"math/bits"
)

// The block engine computes what Worker.Classify computes, for the 16
// observers of a 4×4 block of cells at once: one walk of every sector's
// midlines with a lane per observer, one traversal of the quad pyramid
// shared by the 16 pyramids, and their classes recorded in the order a
// predictive quadtree's codes are written (§3.2), with the unions of the
// block's 2×2 groups and of the whole block besides. Neighbouring observers
// reach nearly the same quads and read nearly the same elevations, offset
// table entries and profile slots: what one observer's traversal costs is
// shared by sixteen, and their per-lane arithmetic runs side by side (SIMD
// where the build has it, lanes.go and lanes_simd.go). The decisions are the
// per-cell test's, lane by lane, on the same float32 values: the pyramids are
// Classify's, bit for bit (TestBlockMatchesClassify).

// BlockSide is the side of a block of observers in cells; a block is a
// level-2 quad of the point hierarchy, its Lanes = BlockSide² observers.
const (
	BlockSide = 4
	Lanes     = BlockSide * BlockSide
)

// Unions is the number of unions a Block holds: union j < 4 is that of the
// 2×2 group of lanes of the block's level-1 quad j (Morton order: j = 2·(row
// bit) + column bit), union 4 that of all 16 lanes, the block's level-2
// quad.
const Unions = 5

// unionLanes[j] is the set of lanes of union j.
var unionLanes = [Unions]uint16{0x0033, 0x00cc, 0x3300, 0xcc00, 0xffff}

// LaneClasses holds one class per lane of a quad: lane b's class is Hidden
// when bit b of Hid is set, Visible when bit b of Vis is, and Mixed when
// neither is; both set means the quad lies outside the terrain.
type LaneClasses struct{ Hid, Vis uint16 }

// UnionClasses is LaneClasses for the block's Unions unions (bit j: union j).
type UnionClasses struct{ Hid, Vis uint8 }

// BlockGroup is the four children of a quad that some lane or union finds
// Mixed, in Morton order (child k = 2·(row bit) + column bit), as they follow
// each other in a predictive quadtree's codes.
type BlockGroup struct {
	Lanes  uint16         // the lanes whose pyramid has the parent Mixed: their trees hold these four codes
	Unions uint8          // the same for the unions
	Child  [4]LaneClasses // each child's class per lane (meaningful for Lanes)
	UChild [4]UnionClasses
}

// Block is the visibility from the 16 observers of one block (§3.1) — the
// cells (Col + b%4, Row + b/4) for lane b = 0…15 — as their 16 quad
// pyramids, and the pyramids of the unions of their visible sets (the
// PVSs of the block's level-1 and level-2 quads, §3.2), in breadth-first
// code order: Root is each pyramid's root class (K = ⌈log2 max(W,H)⌉),
// Groups[d] the groups of quads of depth d+1 (level K−d−1), and within a
// depth the groups follow the Morton order of their parents, which is the
// order of the Mixed codes at the depth above in every pyramid. Lane b's
// predictive quadtree is therefore its root code, then for each depth the
// four codes of every group whose Lanes has bit b (quadpvs.Encoder's
// EncodeBlock writes it). A lane whose observer lies outside the terrain
// (not in Points) or stands on a nodata cell has an all-Hidden pyramid.
type Block struct {
	Col, Row int
	Points   uint16 // lanes whose observer is a cell of the terrain
	Root     LaneClasses
	URoot    UnionClasses
	Groups   [][]BlockGroup
}

// BlockStats counts a BlockWorker's work since it was made, for
// benchmarks.
type BlockStats struct {
	Blocks     int // Classify calls
	WalkSteps  int // lane-steps walked (16 per step of a block's line)
	Bounds     int // quads of level ≥ 2 tried as a whole
	Sectors    int // sectors the bounds spanned
	CellGroups int // level-1 quads whose cells were tested
	LaneCells  int // cell tests (lanes × cells)
	NearCells  int // of which lane by lane: quads in the block's rows or columns, or at the reach's edge
}

// blockPad is the border, in cells, of the padded elevations the block walk
// reads: a lane past its own line's end keeps reading (masked) beside the
// lanes still inside, at most a block side plus the interpolation's second
// cell away.
const blockPad = 8

// padded returns the model's elevations with a border of blockPad cells
// (zero metres), row-major over Width+2·blockPad columns, built once.
func (m *Model) padded() ([]float32, int) {
	m.padOnce.Do(func() {
		pw := m.t.Width + 2*blockPad
		m.pad = make([]float32, pw*(m.t.Height+2*blockPad))
		for r := range m.t.Height {
			copy(m.pad[(r+blockPad)*pw+blockPad:], m.t.Elev[r*m.t.Width:(r+1)*m.t.Width])
		}
		m.padW = pw
	})
	return m.pad, m.padW
}

// BlockWorker computes Blocks on one Model. It owns scratch memory reused
// from call to call (allocating nothing once warm), so it must not be shared
// between goroutines: make one per goroutine.
type BlockWorker struct {
	m *Model
	// The current block.
	col, row int
	points   uint16 // lanes that are cells of the terrain
	active   uint16 // points with data
	eye      [Lanes]float32
	tau      [Lanes]float32 // target height plus margin minus the eye, metres
	// prof holds the lanes' profiles interleaved: slot j of sector k for
	// lane b is prof[(start[k]+j)·Lanes + b], j = 0 (the observer, -Inf) …
	// n[k]; a slot beyond n[k] reads slot n[k] (see walk). start and n
	// repeat past S (sector k mod S, to 2S+31), so that the sectors that
	// bracket an azimuth need no reduction modulo S.
	prof  []float32
	start []int32
	n     []int32
	// dec is prof decimated for the bounds, which read two rows per sector
	// and so, on large terrains, miss the caches: entry i of sector k (row
	// decStart[k]+i) is slot min(i·2^decShift, n[k]), i = 0 … ⌈n[k]/2^decShift⌉.
	// Slot j's entry j>>decShift holds at most its value, entry
	// (j+2^decShift−1)>>decShift at least (a running maximum only grows).
	dec      []float32
	decStart []int32
	band     band
	elev     []float32 // padded elevations, padW columns
	padW     int
	lane     [Lanes]int32 // lane b's observer's index in elev, relative to lane 0's
	ext      [Lanes]int32 // scratch: each lane's steps inside the grid on the current line
	stop     []float32    // scratch: the band's heights per chunk of the current line
	sb       []float32    // scratch of the walk kernel: per chunk, each lane's slope bound
	bj       boundJob
	cj       cellJob
	// scratch of the vector kernels
	t0, t1 [Lanes]float32
	i0, i1 [Lanes]int32
	ml     Levels // the mask's pyramid, or nil
	blk    *Block
	Stats  BlockStats
}

// NewBlockWorker returns a BlockWorker with its scratch allocated; the
// profiles grow to 64 bytes per midline slot walked by a block (at most
// 64·S·(longer side + 1) bytes, ProfileBytes).
func (m *Model) NewBlockWorker() *BlockWorker {
	elev, pw := m.padded()
	S := m.p.Sectors
	bw := &BlockWorker{
		m: m, elev: elev, padW: pw,
		start: make([]int32, 2*S+2*Lanes), n: make([]int32, 2*S+2*Lanes), decStart: make([]int32, 2*S+2*Lanes),
		band: m.newBand(),
		stop: make([]float32, max(m.t.Width, m.t.Height)>>stepShift+2),
		sb:   make([]float32, Lanes*(max(m.t.Width, m.t.Height)>>stepShift+2)),
	}
	bw.band.tile = make([]float32, len(bw.band.suf))
	return bw
}

// BlockProfileBytes bounds the profile memory of one BlockWorker of a
// width×height terrain with S sectors, in bytes.
func BlockProfileBytes(width, height, sectors int) int64 {
	return 4 * Lanes * int64(sectors) * int64(max(width, height)+1)
}

// Classify computes the block of observers whose top-left cell is
// (col,row), both multiples of BlockSide inside the terrain, into dst
// (reusing its memory): the pyramids Worker.Classify gives each of the
// block's observers, and their unions (see Block). Cells outside mask are
// hidden and observers on them see nothing, when mask is not nil.
//
// Errors: ErrOutside when (col,row) is not such a cell.
func (bw *BlockWorker) Classify(col, row int, mask *Mask, dst *Block) error {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	if col < 0 || row < 0 || col >= W || row >= H || col%BlockSide != 0 || row%BlockSide != 0 {
		return fmt.Errorf("%w: (%d,%d) is not the corner of a block of the %d×%d grid", ErrOutside, col, row, W, H)
	}
	bw.col, bw.row, bw.blk = col, row, dst
	bw.ml = nil
	if mask != nil {
		bw.ml = mask.lv
	}
	bw.points, bw.active = 0, 0
	for b := range Lanes {
		c, r := col+b%BlockSide, row+b/BlockSide
		bw.lane[b] = int32((b/BlockSide)*bw.padW + b%BlockSide)
		if c >= W || r >= H {
			continue
		}
		bw.points |= 1 << b
		if bw.ml != nil && bw.ml[0][r*W+c] == QuadHidden {
			continue // nobody stands on, so nobody sees, a nodata cell
		}
		bw.active |= 1 << b
		bw.eye[b] = m.t.Elev[r*W+c] + float32(m.p.ObserverHeight)
		bw.tau[b] = float32(m.p.TargetHeight+m.p.Margin) - bw.eye[b]
	}
	dst.Col, dst.Row, dst.Points = col, row, bw.points
	top := len(m.zmin) - 1
	if cap(dst.Groups) < top {
		dst.Groups = make([][]BlockGroup, top)
	}
	dst.Groups = dst.Groups[:top]
	for d := range dst.Groups {
		dst.Groups[d] = dst.Groups[d][:0]
	}
	bw.Stats.Blocks++
	if bw.active == 0 {
		dst.Root, dst.URoot = LaneClasses{Hid: 0xffff}, UnionClasses{Hid: 0xff}
		return nil
	}
	bw.walk()
	var hid, vis uint16
	var u UnionClasses
	if top == 0 { // a 1×1 terrain: the root is the observer's own cell
		hid, vis, u = bw.active, 0, unionOf(0, ^bw.active)
		if v := bw.cell(0, 0, bw.active); v != 0 {
			hid, vis, u = bw.active&^v, v, unionOf(v, ^v)
		}
	} else {
		hid, vis, u = bw.quad(top, 0, 0, bw.active, 0)
	}
	dst.Root = LaneClasses{Hid: hid | ^bw.active, Vis: vis}
	dst.URoot = u
	return nil
}

// unionOf returns the classes of the unions of a quad whose lanes are
// visible in v and hidden in h (lanes in neither are mixed): visible when a
// lane of the union is, hidden when all are, mixed otherwise. Bit tricks
// over the 2×2 groups of lanes (unionLanes): a group's "any" and "all"
// land on its first lane's bit.
func unionOf(v, h uint16) UnionClasses {
	v2 := v | v>>1
	v4 := v2 | v2>>4
	h2 := h & (h >> 1)
	h4 := h2 & (h2 >> 4)
	uv := uint8(v4&1 | v4>>1&2 | v4>>6&4 | v4>>7&8)
	uh := uint8(h4&1 | h4>>1&2 | h4>>6&4 | h4>>7&8)
	if v != 0 {
		uv |= 1 << 4
	}
	if h == 0xffff {
		uh |= 1 << 4
	}
	return UnionClasses{Hid: uh &^ uv, Vis: uv}
}

// quad classifies quad (l,x,y), l ≥ 1, for the lanes of act, the lanes of
// inhV being visible there (decided at an ancestor) and all others hidden.
// It returns the lanes of act it finds hidden and visible (the rest are
// mixed: their children's classes are recorded in a group at depth K−l)
// and the unions' classes of the quad.
func (bw *BlockWorker) quad(l, x, y int, act, inhV uint16) (hid, vis uint16, u UnionClasses) {
	m := bw.m
	qi := y*int(m.cols[l]) + x
	mk := QuadVisible
	if bw.ml != nil {
		if mk = bw.ml[l][qi]; mk == QuadHidden {
			return act, 0, unionOf(inhV, ^inhV)
		}
	}
	if l == 1 {
		return bw.quad2(x, y, act, inhV)
	}
	if l >= minBoundLevel {
		hid, vis = bw.bound(l, x, y, act)
		if mk == QuadMixed {
			vis = 0 // some cells have no data: never wholly visible
		}
	}
	mix := act &^ (hid | vis)
	if mix == 0 {
		return hid, vis, unionOf(inhV|vis, ^(act|inhV)|hid)
	}
	// Some lanes need the children: record their group, then classify them.
	u = unionOf(inhV|vis, ^(act|inhV)|hid)
	um := ^(u.Hid | u.Vis) & (1<<Unions - 1)
	d := len(bw.m.zmin) - 1 - l
	gs := &bw.blk.Groups[d]
	gi := len(*gs)
	*gs = append(*gs, BlockGroup{})
	V, H := inhV|vis, ^(act|inhV)|hid
	allH, allV := mix, mix
	uAllH, uAllV := uint8(1<<Unions-1), uint8(1<<Unions-1)
	var child [4]LaneClasses
	var uchild [4]UnionClasses
	for k := range 4 {
		cx, cy := 2*x+k&1, 2*y+k>>1
		if cx<<(l-1) >= m.t.Width || cy<<(l-1) >= m.t.Height {
			child[k], uchild[k] = LaneClasses{0xffff, 0xffff}, UnionClasses{0xff, 0xff} // past the terrain's edge: a don't-care
			continue
		}
		ch, cv, cu := bw.quad(l-1, cx, cy, mix, V)
		child[k], uchild[k] = LaneClasses{Hid: ch, Vis: cv}, cu
		allH &= ch
		allV &= cv
		uAllH &= cu.Hid
		uAllV &= cu.Vis
	}
	// A lane whose children are all hidden (or all visible) has the quad
	// hidden (visible): the canonical pyramid, as Classify combines them.
	hid |= allH
	vis |= allV
	mix &^= allH | allV
	u.Hid |= uAllH & um
	u.Vis |= uAllV & um
	um &^= uAllH | uAllV
	_ = H
	if mix == 0 && um == 0 {
		*gs = (*gs)[:gi] // nobody reads these children
		return hid, vis, u
	}
	(*gs)[gi] = BlockGroup{Lanes: mix, Unions: um, Child: child, UChild: uchild}
	return hid, vis, u
}

// quad2 classifies the cells of level-1 quad (x,y) for the lanes of act
// (inhV as for quad) and returns the quad's classes.
func (bw *BlockWorker) quad2(x, y int, act, inhV uint16) (hid, vis uint16, u UnionClasses) {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	bw.Stats.CellGroups++
	var child [4]LaneClasses
	var uchild [4]UnionClasses
	vs := bw.quadCells(x, y, act)
	allH, allV := act, act
	for k := range 4 {
		c, r := 2*x+k&1, 2*y+k>>1
		if c >= W || r >= H {
			child[k], uchild[k] = LaneClasses{0xffff, 0xffff}, UnionClasses{0xff, 0xff}
			continue
		}
		v := vs[k]
		if bw.ml != nil && bw.ml[0][r*W+c] == QuadHidden {
			v = 0
		}
		child[k] = LaneClasses{Hid: act &^ v, Vis: v}
		uchild[k] = unionOf(inhV|v, ^(inhV | v))
		allH &^= v
		allV &= v
	}
	hid, vis = allH, allV
	mix := act &^ (hid | vis)
	u = unionOf(inhV|vis, ^(act|inhV)|hid)
	um := ^(u.Hid | u.Vis) & (1<<Unions - 1)
	if um != 0 {
		// A union no lane decides whole is visible when each cell is.
		all := uint8(1<<Unions - 1)
		for k := range 4 {
			all &= uchild[k].Vis
		}
		u.Vis |= all & um
		um &^= all
	}
	if mix != 0 || um != 0 {
		d := len(m.zmin) - 2
		bw.blk.Groups[d] = append(bw.blk.Groups[d], BlockGroup{Lanes: mix, Unions: um, Child: child, UChild: uchild})
	}
	return hid, vis, u
}

// bound decides quad (l,x,y), l ≥ 2, for the lanes of act from bounds
// shared by the block's observers: the offsets from any observer of the
// block to any cell of the quad form one rectangle, whose nearest and
// farthest offsets and corner azimuths bound every lane's (as Worker's bound
// does for one observer); each lane's own highest and lowest target and its
// own profile decide it. A lane is hidden when, for every sector whose
// midline brackets some cell, its running maximum at the nearest distance
// exceeds its highest target's slope; visible when at the farthest distance
// it is at most its lowest target's. Every value is the per-cell test's
// float32 value or bounds it monotonically, so a decided lane is decided the
// same way cell by cell.
func (bw *BlockWorker) bound(l, x, y int, act uint16) (hid, vis uint16) {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	bw.Stats.Bounds++
	c0, r0 := x<<l, y<<l
	c1, r1 := min(c0+1<<l, W)-1, min(r0+1<<l, H)-1
	// Observers of the block: columns bw.col…oc1, rows bw.row…or1.
	oc1, or1 := min(bw.col+BlockSide, W)-1, min(bw.row+BlockSide, H)-1
	dc0, dc1, dr0, dr1 := c0-oc1, c1-bw.col, r0-or1, r1-bw.row
	if dc0 <= 0 && 0 <= dc1 && dr0 <= 0 && 0 <= dr1 {
		return 0, 0 // holds the block's observers
	}
	nc, nr := clampZero(dc0, dc1), clampZero(dr0, dr1)
	if abs(nc) > m.rc || abs(nr) > m.rr {
		return act, 0 // wholly beyond MaxDistance
	}
	on := abs(nr)*(m.rc+1) + abs(nc)
	dNear := m.offD[on]
	if dNear > m.lim {
		return act, 0
	}
	fc, fr := farther(dc0, dc1), farther(dr0, dr1)
	far := abs(fc) <= m.rc && abs(fr) <= m.rr
	var dFar, invFar float32
	of := 0
	if far {
		of = abs(fr)*(m.rc+1) + abs(fc)
		dFar, invFar = m.offD[of], m.offInv[of]
		far = dFar <= m.lim
	}
	if !far {
		dFar, invFar = m.lim, m.invLim // some cells beyond MaxDistance: never wholly visible
	}
	S := m.p.Sectors
	uLo, uHi := float32(math.Inf(1)), float32(math.Inf(-1))
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
		uLo, uHi = min(uLo, u), max(uHi, u)
	}
	// The sectors that bracket some cell: a cell at azimuth u has brackets
	// k0 = int(u + S − ½) (computed so, in float32, a monotone function of
	// u) and k0+1, in the tables that repeat past S. The table's azimuths
	// are monotone in the true ones only up to a unit in the last place:
	// the corners' are widened by two.
	const slack = 0x1p-7 // two units in the last place of a float32 below 2^16
	kLo := int(uLo - slack + float32(S) - 0.5)
	kHi := int(uHi+slack+float32(S)-0.5) + 1
	if kHi-kLo+1 >= S {
		kLo, kHi = S, 2*S-1
	}
	qi := y*int(m.cols[l]) + x
	var drpNear, drpFar float32
	if m.offDrp != nil {
		drpNear = m.offDrp[on] // the least drop
		if far {
			drpFar = m.offDrp[of] // the most
		}
	}
	if !far && act == 0 {
		return 0, 0
	}
	bw.Stats.Sectors += kHi - kLo + 1
	bj := &bw.bj
	*bj = boundJob{kLo: kLo, kHi: kHi, dNear: dNear, dFar: dFar, invNear: m.offInv[on], invFar: invFar,
		zmax: m.zmax[l][qi], zmin: m.zmin[l][qi], drpNear: drpNear, drpFar: drpFar, hid: act}
	if far {
		bj.vis = act
	}
	kernels.bound(bw, bj)
	return bj.hid, bj.vis
}

// boundJob is a quad for the bound kernel: the sectors kLo … kHi (in the
// tables that repeat past S) whose midlines bracket its cells, its nearest
// and farthest distances (metres) and their inverses, its highest and
// lowest elevation and the least and the most Earth-curvature drop of its
// cells (metres), and the lanes still possibly hidden (hid) and visible
// (vis), which the kernel narrows. The targets' heights are taken in the
// per-cell test's order of operations, (z + tau) − drop, so that each
// bound is monotone in the values it stands for.
type boundJob struct {
	kLo, kHi        int
	dNear, dFar     float32
	invNear, invFar float32
	zmax, zmin      float32
	drpNear, drpFar float32
	hid, vis        uint16
}

// quadCells applies the per-cell test to the cells of level-1 quad (x,y)
// (child k at (2x + k&1, 2y + k>>1), those inside the grid) for the lanes
// of act, and returns for each the lanes that see it (Worker.cellVisible,
// lane by lane). A quad outside the block's rows and columns whose offsets
// all lie within reach — nearly every quad — goes to the cell kernel; the
// others are tested lane by lane here.
func (bw *BlockWorker) quadCells(x, y int, act uint16) [4]uint16 {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	bw.Stats.LaneCells += 4 * bits.OnesCount16(act)
	dc, dr := 2*x-bw.col, 2*y-bw.row // lane 0's offset to the quad's first cell
	if (dc < 0 || dc >= BlockSide) && (dr < 0 || dr >= BlockSide) {
		// Lane (x,y) has offset (dc−x, dr−y) to a cell at offset (dc,dr)
		// from lane 0: its table entry is in the 4×4 window of rows |dr|…,
		// columns |dc|… of one quadrant (+1 row or column for the second
		// cell of the quad).
		j := &bw.cj
		east, south := dc > 0, dr > 0
		maxc, maxr := BlockSide-1-dc, BlockSide-1-dr // west, north: the quad's first column and row are farthest
		j.flip = 0
		if east {
			maxc, j.flip = dc+1, j.flip|1
		}
		if south {
			maxr, j.flip = dr+1, j.flip|2
		}
		if maxc <= m.rc && maxr <= m.rr {
			switch {
			case east && !south:
				j.quad = 0
			case east:
				j.quad = 1
			case south:
				j.quad = 2
			default:
				j.quad = 3
			}
			stride := m.rc + 1
			j.cells, j.act = 0, act
			for k := range 4 {
				c, r := 2*x+k&1, 2*y+k>>1
				if c >= W || r >= H {
					continue
				}
				j.cells |= 1 << k
				j.z[k] = m.t.Elev[r*W+c]
				wc, wr := bw.col-c, bw.row-r // the window's nearest column and row
				if east {
					wc = c - bw.col - (BlockSide - 1)
				}
				if south {
					wr = r - bw.row - (BlockSide - 1)
				}
				j.win[k] = wr*stride + wc
			}
			kernels.cells(bw, j)
			return [4]uint16{j.vis[0] & act, j.vis[1] & act, j.vis[2] & act, j.vis[3] & act}
		}
	}
	var vs [4]uint16
	bw.Stats.NearCells += 4 * bits.OnesCount16(act)
	for k := range 4 {
		c, r := 2*x+k&1, 2*y+k>>1
		if c < W && r < H {
			vs[k] = bw.cell(c, r, act)
		}
	}
	return vs
}

// cell applies the per-cell test to cell (c,r) for the lanes of act, lane
// by lane, and returns those that see it.
func (bw *BlockWorker) cell(c, r int, act uint16) uint16 {
	m := bw.m
	z := m.t.Elev[r*m.t.Width+c]
	var vis uint16
	for b := range Lanes {
		if act&(1<<b) == 0 {
			continue
		}
		dc, dr := c-bw.col-b%BlockSide, r-bw.row-b/BlockSide
		if dc == 0 && dr == 0 {
			vis |= 1 << b
			continue
		}
		if abs(dc) > m.rc || abs(dr) > m.rr {
			continue
		}
		o, u := m.offset(dc, dr)
		d := m.offD[o]
		if d > m.lim {
			continue
		}
		zz := z + bw.tau[b]
		if m.offDrp != nil {
			zz -= m.offDrp[o]
		}
		k0 := int(u + float32(m.p.Sectors) - 0.5) // brackets' first sector, not reduced modulo S
		if zz*m.offInv[o] >= min(bw.slot(k0, d, b), bw.slot(k0+1, d, b)) {
			vis |= 1 << b
		}
	}
	return vis
}

// cellJob is a level-1 quad for the cell kernel: for each of its cells k
// in cells (bit k: inside the grid), its elevation z[k] and where its
// lanes' offsets lie in the offset table: a 4×4 window from entry win[k]
// (the smallest |dr| and |dc| of the lanes), lane (x,y) at window column x
// (3−x when flip&1: the quad is east of the block) and row y (3−y when
// flip&2: south), in quadrant quad of quadrantU (0 north-east, 1
// south-east, 2 south-west, 3 north-west). The kernel sets vis[k] to the
// lanes that see cell k (all 16 computed).
type cellJob struct {
	z     [4]float32
	win   [4]int
	vis   [4]uint16
	act   uint16 // the lanes wanted (others may be computed, or not)
	cells uint8
	flip  uint8
	quad  uint8
}

// slot returns lane b's running maximum of sector k mod S (0 ≤ k ≤ 2S) at
// the slot that decides a cell d metres away (Worker.slot).
func (bw *BlockWorker) slot(k int, d float32, b int) float32 {
	j := max(min(int(float32(d*bw.m.secInvX[k])-marginSteps), int(bw.n[k])), 0)
	return bw.prof[(int(bw.start[k])+j)*Lanes+b]
}

// walk fills every lane's profiles of all sectors for the current block.
//
// All lanes walk the same number of steps n[k] of sector k: a lane whose
// line leaves the grid earlier keeps its running maximum (its later samples
// are masked), which is what Worker's slot clamp reads there; a lane whose
// own early stop came earlier keeps computing the same running maximum (by
// the stop's bound no later sample raises it). So every slot a cell reads
// holds the value Worker.walk gives it.
func (bw *BlockWorker) walk() {
	m := bw.m
	W := m.t.Width
	if bw.band.tx != bw.col>>bandShift || bw.band.ty != bw.row>>bandShift {
		bw.band.tx, bw.band.ty = bw.col>>bandShift, bw.row>>bandShift
		bw.band.build(m)
	}
	S := m.p.Sectors
	negInf := float32(math.Inf(-1))
	pos, dpos := 0, 0
	base := (bw.row+blockPad)*bw.padW + bw.col + blockPad // lane 0's observer in the padded elevations
	tl := min(bandShift, len(m.zmax)-1)
	for k := range S {
		nmax := 0
		for b := range Lanes {
			bw.ext[b] = 0
			if bw.active&(1<<b) != 0 {
				bw.ext[b] = int32(m.steps(k, bw.col+b%BlockSide, bw.row+b/BlockSide))
				nmax = max(nmax, int(bw.ext[b]))
			}
		}
		need := (pos + nmax + 1) * Lanes
		if need > len(bw.prof) {
			bw.prof = append(bw.prof, make([]float32, need-len(bw.prof)+need/4)...)
		}
		bw.start[k] = int32(pos)
		row := bw.prof[pos*Lanes : (pos+1)*Lanes]
		for b := range row {
			row[b] = negInf
		}
		// The band's highest elevation per chunk of 2^stepShift steps:
		// over the tiles that any lane's steps of the chunk cross.
		colMaj := m.secColMaj[k]
		dir := 1
		if m.secMajor[k] < 0 {
			dir = -1
		}
		major, majLen := bw.col, W
		if !colMaj {
			major, majLen = bw.row, m.t.Height
		}
		lo, hi := major, min(major+BlockSide, majLen)-1 // the lanes' major coordinates
		chunks := (nmax + 1<<stepShift - 1) >> stepShift
		bt := bw.band.tile[k*bw.band.stride : (k+1)*bw.band.stride]
		for c := range chunks {
			i0, i1 := c<<stepShift+1, (c+1)<<stepShift // the chunk's steps
			a, b := lo+dir*i0, hi+dir*i1
			if dir < 0 {
				a, b = lo-i1, hi-i0
			}
			a, b = max(a, 0), min(b, majLen-1)
			z := negInf // past the grid: nothing left to raise the maxima
			for p := a >> tl; p <= b>>tl && a <= b; p++ {
				z = max(z, bt[p])
			}
			bw.stop[c] = z
		}
		maj, mw := int(m.secMajor[k]), int(m.secMinor[k])
		if colMaj {
			mw = bw.padW
		} else {
			maj = maj / W * bw.padW
		}
		n := kernels.walk(bw.prof[(pos+1)*Lanes:(pos+1+nmax)*Lanes], m.recip[1:nmax+1], bw.elev, &bw.lane, &bw.ext, &bw.eye,
			bw.stop[:chunks], bw.sb[:chunks*Lanes], base+maj, maj, mw, m.secSlope[k], m.secInv[k], curveDrop(m, k))
		bw.n[k] = int32(n)
		bw.Stats.WalkSteps += n * Lanes
		// The decimated rows.
		last := (n + 1<<decShift - 1) >> decShift
		bw.decStart[k] = int32(dpos)
		if need := (dpos + last + 1) * Lanes; need > len(bw.dec) {
			bw.dec = append(bw.dec, make([]float32, need-len(bw.dec)+need/4)...)
		}
		for i := range last + 1 {
			src := pos + min(i<<decShift, n)
			copy(bw.dec[(dpos+i)*Lanes:(dpos+i+1)*Lanes], bw.prof[src*Lanes:(src+1)*Lanes])
		}
		dpos += last + 1
		pos += n + 1
	}
	for k := S; k < len(bw.start); k++ {
		bw.start[k], bw.n[k], bw.decStart[k] = bw.start[k-S], bw.n[k-S], bw.decStart[k-S]
	}
}

// curveDrop returns sector k's Earth-curvature drop per step², metres (0
// without curvature).
func curveDrop(m *Model, k int) float32 {
	if m.secDrop == nil {
		return 0
	}
	return m.secDrop[k]
}
