package horizon

import "fmt"

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

// TileSide is the side in cells of the observer tiles (level-4 quads) whose
// blocks share one early-stop band: a BlockWorker builds a tile's band when
// it enters the tile, so blocks visited tile by tile (Morton order) build
// each band once, and blocks visited in no order build one each.
const TileSide = 1 << bandShift

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
//
// The T fields describe the same pyramids truncated at level 1: every mixed
// level-1 quad made visible, then every quad whose children are all visible
// (or outside) made visible, up — the tree the §3.4 cap has reached once it
// has collapsed every group of cells, from which a cap that binds further
// continues exactly as from the whole tree (quadpvs.Capper). A child's
// truncated class is Hidden as in Child, Visible when its bit is in TVis,
// Mixed otherwise; TLanes (TUnions) are the lanes (unions) whose truncated
// pyramid has the parent Mixed. Groups of cells have none.
type BlockGroup struct {
	Lanes   uint16         // the lanes whose pyramid has the parent Mixed: their trees hold these four codes
	Unions  uint8          // the same for the unions
	TUnions uint8          // truncated at level 1
	TLanes  uint16         // truncated at level 1
	Child   [4]LaneClasses // each child's class per lane (meaningful for Lanes)
	TVis    [4]uint16      // truncated at level 1: the lanes that find the child visible
	UChild  [4]UnionClasses
	UTVis   [4]uint8
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
// EncodeBlockTrees writes it). A lane whose observer lies outside the terrain
// (not in Points) or stands on a nodata cell has an all-Hidden pyramid.
type Block struct {
	Col, Row int
	Points   uint16 // lanes whose observer is a cell of the terrain
	Root     LaneClasses
	URoot    UnionClasses
	TRoot    uint16 // truncated at level 1 (see BlockGroup): the lanes whose root is visible
	UTRoot   uint8
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

// BlockWorker computes Blocks on one Model. It owns scratch memory reused
// from call to call (allocating nothing once warm), so it must not be shared
// between goroutines: make one per goroutine.
type BlockWorker struct {
	m *Model
	k *kernelSet // the model's kernels when the worker was made
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
	// bracket an azimuth need no reduction modulo S and the vector kernels
	// may load a window of sectors past the last (k ≤ 2S).
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
	consJ    consJob      // scratch of the conservative walk: a step, its segments when computed,
	consSegs []consSeg
	consSuf  []float32 // and the band's suffix maxima
	cutL     cutLanes  // the cut walk's lanes (region versions 4 and 5)
	bj       boundJob
	cj       cellJob
	// scratch of the vector kernels
	i0, i1 [Lanes]int32
	// The vector kernels' scratch (lanes_simd.go): kept here because
	// arrays on their stack are zeroed with legacy SSE stores.
	t0, t1 [Lanes]uint32
	jn, jf [Lanes]int32
	invs   [Lanes]float32
	gather struct {
		inv0, inv1 [Lanes]uint32 // float32 bits
		n0, n1     [Lanes]int32
		s0, s1     [Lanes]int32
	}
	ml    Levels // the mask's pyramid, or nil
	blk   *Block
	Stats BlockStats
}

// NewBlockWorker returns a BlockWorker with its scratch allocated; the
// profiles grow to 64 bytes per midline slot a block walks, and an eighth
// of that for their decimated copy (BlockProfileBytes bounds both).
func (m *Model) NewBlockWorker() *BlockWorker {
	elev, pw := m.padded()
	S := m.p.Sectors
	bw := &BlockWorker{
		m: m, k: m.kernelSet(), elev: elev, padW: pw,
		start: make([]int32, 2*S+2*Lanes), n: make([]int32, 2*S+2*Lanes), decStart: make([]int32, 2*S+2*Lanes),
		band: m.newBand(),
		stop: make([]float32, max(m.t.Width, m.t.Height)>>stepShift+2),
		sb:   make([]float32, Lanes*(max(m.t.Width, m.t.Height)>>stepShift+2)),
	}
	bw.band.tile = make([]float32, len(bw.band.suf))
	return bw
}

// BlockProfileBytes bounds the profile memory of one BlockWorker of a
// width×height terrain with S sectors, in bytes: 64 bytes per slot of every
// midline walked to the grid's edge (no line stopping early, as on a flat
// plane), plus the decimated copy.
func BlockProfileBytes(width, height, sectors int) int64 {
	slots := int64(sectors) * int64(max(width, height)+2)
	return 4 * Lanes * (slots + slots>>decShift + int64(sectors))
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
		bw.eye[b] = m.top[r*W+c] + float32(m.p.ObserverHeight)
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
		dst.TRoot, dst.UTRoot = 0, 0
		return nil
	}
	bw.walk()
	var hid, vis, tv uint16
	var u UnionClasses
	var utv uint8
	if top == 0 { // a 1×1 terrain: the root is the observer's own cell
		hid, vis, u = bw.active, 0, unionOf(0, ^bw.active)
		if v := bw.cell(0, 0, bw.active); v != 0 {
			hid, vis, u = bw.active&^v, v, unionOf(v, ^v)
		}
		tv, utv = vis, u.Vis
	} else {
		hid, vis, tv, u, utv = bw.quad(top, 0, 0, bw.active, 0)
	}
	dst.Root = LaneClasses{Hid: hid | ^bw.active, Vis: vis}
	dst.URoot = u
	dst.TRoot, dst.UTRoot = tv, utv
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
// mixed: their children's classes are recorded in a group at depth K−l),
// those of act visible in the pyramid truncated at level 1 (tv, see
// BlockGroup), and the unions' classes of the quad, whole and truncated.
func (bw *BlockWorker) quad(l, x, y int, act, inhV uint16) (hid, vis, tv uint16, u UnionClasses, utv uint8) {
	m := bw.m
	qi := y*int(m.cols[l]) + x
	mk := QuadVisible
	if bw.ml != nil {
		if mk = bw.ml[l][qi]; mk == QuadHidden {
			u = unionOf(inhV, ^inhV)
			return act, 0, 0, u, u.Vis
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
		u = unionOf(inhV|vis, ^(act|inhV)|hid)
		return hid, vis, vis, u, u.Vis
	}
	// Some lanes need the children: record their group, then classify them.
	u = unionOf(inhV|vis, ^(act|inhV)|hid)
	um := ^(u.Hid | u.Vis) & (1<<Unions - 1)
	d := len(bw.m.zmin) - 1 - l
	gs := &bw.blk.Groups[d]
	gi := len(*gs)
	*gs = append(*gs, BlockGroup{})
	V := inhV | vis
	allH, allV, allTV := mix, mix, mix
	const all = uint8(1<<Unions - 1)
	uAllH, uAllV, uAllTV := all, all, all
	var g BlockGroup
	for k := range 4 {
		cx, cy := 2*x+k&1, 2*y+k>>1
		if cx<<(l-1) >= m.t.Width || cy<<(l-1) >= m.t.Height {
			// Past the terrain's edge: a don't-care.
			g.Child[k], g.UChild[k] = LaneClasses{0xffff, 0xffff}, UnionClasses{0xff, 0xff}
			g.TVis[k], g.UTVis[k] = 0xffff, 0xff
			continue
		}
		ch, cv, ctv, cu, cutv := bw.quad(l-1, cx, cy, mix, V)
		g.Child[k], g.TVis[k], g.UChild[k], g.UTVis[k] = LaneClasses{Hid: ch, Vis: cv}, ctv, cu, cutv
		allH &= ch
		allV &= cv
		allTV &= ctv
		uAllH &= cu.Hid
		uAllV &= cu.Vis
		uAllTV &= cutv
	}
	// A lane whose children are all hidden (or all visible) has the quad
	// hidden (visible): the canonical pyramid, as Classify combines them.
	hid |= allH
	vis |= allV
	mix &^= allH | allV
	u.Hid |= uAllH & um
	u.Vis |= uAllV & um
	um &^= uAllH | uAllV
	tv = vis | mix&allTV
	utv = u.Vis | um&uAllTV
	if mix == 0 && um == 0 {
		*gs = (*gs)[:gi] // nobody reads these children
		return hid, vis, tv, u, utv
	}
	g.Lanes, g.Unions, g.TLanes, g.TUnions = mix, um, mix&^tv, um&^utv
	(*gs)[gi] = g
	return hid, vis, tv, u, utv
}

// quad2 classifies the cells of level-1 quad (x,y) for the lanes of act
// (inhV as for quad) and returns the quad's classes.
func (bw *BlockWorker) quad2(x, y int, act, inhV uint16) (hid, vis, tv uint16, u UnionClasses, utv uint8) {
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
	// Truncated at level 1, a mixed level-1 quad is visible.
	return hid, vis, act &^ hid, u, ^u.Hid & (1<<Unions - 1)
}
