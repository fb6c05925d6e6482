package quadtree

import "github.com/frontiersets/frontiersets/horizon"

// QuadStatus returns the status of the quad of level l (side 2^l cells) at
// column qx, row qy among that level's quads, in the tree t of geometry g:
// the leaf status of the first leaf on the path from the root, or Unknown
// when the quad's own node is Unknown. Cost: one step per level above l.
// The quad must intersect the terrain.
func (t *Tree) QuadStatus(g Geometry, l, qx, qy int) Status {
	if len(t.refs) > 0 {
		return t.quadStatusShared(g, l, qx, qy)
	}
	depth := g.K - l
	i := 0
	for d := 0; ; d++ {
		c := t.code(i)
		if c != Unknown || d == depth {
			return c
		}
		shift := uint(depth - d - 1)
		i = t.childBase(i) + int(qy>>shift&1)<<1 + int(qx>>shift&1)
	}
}

// quadStatusShared is QuadStatus for a tree with references, which it
// follows into their shared subtrees.
func (t *Tree) quadStatusShared(g Geometry, l, qx, qy int) Status {
	depth := g.K - l
	i := 0
	var sub Tree // the shared subtree being walked
	for d := 0; ; d++ {
		c := t.code(i)
		if c == Outside && len(t.refs) > 0 {
			if e, ok := t.refAt(i); ok {
				sub = t.h.subtree(e)
				t, i, c = &sub, 0, Unknown
			}
		}
		if c != Unknown || d == depth {
			return c
		}
		shift := uint(depth - d - 1)
		i = t.childBase(i) + int(qy>>shift&1)<<1 + int(qx>>shift&1)
	}
}

// CellStatus returns Visible or Hidden for cell (col,row) of the terrain.
func (t *Tree) CellStatus(g Geometry, col, row int) Status {
	return t.QuadStatus(g, 0, col, row)
}

// Walker visits trees breadth-first with each node's quad; it keeps the
// position queue as scratch. It is not safe for concurrent use.
type Walker struct {
	pos  []quadPos
	flat Tree // a shared tree, expanded
	q    []cursor
}

// walk calls fn for every code of t in breadth-first order with its quad.
func (w *Walker) walk(g Geometry, t *Tree, fn func(s Status, p quadPos)) {
	t = t.flat(&w.flat, &w.q)
	w.pos = append(w.pos[:0], quadPos{})
	for i := 0; i < t.n; i++ {
		p := w.pos[i]
		s := t.code(i)
		if s == Unknown {
			w.pos = append(w.pos, p.child(0), p.child(1), p.child(2), p.child(3))
		}
		fn(s, p)
	}
}

// Leaves calls fn for every leaf of t — each Hidden or Visible node, and an
// Unknown node only where t stops above the cells — with its quad: level l
// (0: one cell; quads of side 2^l cells) and position (x, y) in quads of
// that level, so that the quad covers cells [x·2^l, (x+1)·2^l) ×
// [y·2^l, (y+1)·2^l), clipped to the terrain. Quads wholly outside the
// terrain are not visited. Leaves are visited breadth-first.
func (w *Walker) Leaves(g Geometry, t *Tree, fn func(s Status, l, x, y int)) {
	w.walk(g, t, func(s Status, p quadPos) {
		if s == Outside || s == Unknown && p.depth < g.K {
			return
		}
		fn(s, g.K-p.depth, p.x, p.y)
	})
}

// HiddenCells returns the number of terrain cells t marks hidden.
func (w *Walker) HiddenCells(g Geometry, t *Tree) int {
	n := 0
	w.walk(g, t, func(s Status, p quadPos) {
		if s == Hidden {
			n += g.cellsIn(p)
		}
	})
	return n
}

// VisibleCells returns the number of terrain cells t marks visible (an
// Unknown code where t stops above the cells counts as visible).
func (w *Walker) VisibleCells(g Geometry, t *Tree) int {
	n := 0
	w.walk(g, t, func(s Status, p quadPos) {
		if s == Visible || s == Unknown && p.depth == g.K {
			n += g.cellsIn(p)
		}
	})
	return n
}

// Bitmap expands t into a bitmap of g's size (set bit = visible), reusing
// dst's words when it has that size.
func (w *Walker) Bitmap(g Geometry, t *Tree, dst horizon.Bitmap) horizon.Bitmap {
	if dst.Width != g.Width || dst.Height != g.Height || len(dst.Words) != (g.Width*g.Height+63)/64 {
		dst = horizon.NewBitmap(g.Width, g.Height)
	} else {
		clear(dst.Words)
	}
	w.walk(g, t, func(s Status, p quadPos) {
		if s != Visible {
			return
		}
		sh := g.K - p.depth
		x0, y0 := p.x<<sh, p.y<<sh
		x1, y1 := min(x0+1<<sh, g.Width), min(y0+1<<sh, g.Height)
		for r := y0; r < y1; r++ {
			for c := x0; c < x1; c++ {
				i := r*g.Width + c
				dst.Words[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	})
	return dst
}

// AnyVisible reports whether t marks visible any terrain cell of the region
// described by overlaps, which says whether the quad of level l at (x,y)
// holds at least one cell of the region. It descends only into quads that
// overlap the region, so its cost follows the region's outline, not the
// tree's size. stack is scratch (may be nil); the grown stack is returned
// for reuse.
func (t *Tree) AnyVisible(g Geometry, overlaps func(l, x, y int) bool, stack []uint64) (bool, []uint64) {
	// Entries come in pairs: the tree (view's id + 1) << 32 | code
	// position, and the quad as depth<<32 | x<<16 | y.
	stack = append(stack[:0], 0, 0)
	v := newView(t)
	for len(stack) > 0 {
		tp, pq := stack[len(stack)-2], stack[len(stack)-1]
		stack = stack[:len(stack)-2]
		depth, x, y := int(pq>>32), int(pq>>16)&0xffff, int(pq)&0xffff
		if !overlaps(g.K-depth, x, y) {
			continue
		}
		id, pos := int32(tp>>32)-1, int(uint32(tp))
		id, pos, s := v.follow(id, pos, v.at(id).code(pos))
		switch s {
		case Visible:
			return true, stack
		case Unknown:
			c := uint64(id+1)<<32 | uint64(v.at(id).childBase(pos))
			for k := range 4 {
				cx, cy := 2*x+k&1, 2*y+k>>1
				if g.outside(quadPos{depth + 1, cx, cy}) {
					continue
				}
				stack = append(stack, c+uint64(k), uint64(depth+1)<<32|uint64(cx)<<16|uint64(cy))
			}
		}
	}
	return false, stack
}

// QuadStatuses sets dst[i] to t.QuadStatus(g, levels[i], x, y) for n =
// len(keys) quads at once, the quad i being the one of level levels[i]
// whose top-left cell has Morton code keys[i] (MortonCode). The keys must
// ascend and, among equal keys, the levels descend; every quad must
// intersect the terrain; len(levels) and len(dst) must be at least n. It
// walks the tree once, depth first, entering only nodes whose cells hold a
// quad's top-left cell: a leaf answers every quad under it, so the cost is at
// most the tree's size and at most one step per level per quad, where n
// QuadStatus calls take n·(K−l) steps, each from the root (as it does on a
// tree with shared subtrees). Safe for concurrent use on one tree.
func (t *Tree) QuadStatuses(g Geometry, keys []uint64, levels []int8, dst []Status) {
	if len(keys) == 0 {
		return
	}
	if len(t.refs) > 0 {
		// A shared tree: one descent per quad.
		for i, k := range keys {
			dst[i] = t.statusAt(g, k, levels[i])
		}
		return
	}
	w := statusWalk{keys: keys, levels: levels[:len(keys)], dst: dst[:len(keys)]}
	w.walkFlat(t, 0, g.K, 0, 0, len(keys))
}

// AllHidden reports whether t marks every one of the quads hidden: whether
// QuadStatuses would give Hidden for each, with the same preconditions on
// keys and levels. The walk stops at the first quad that is not, and does
// not descend below a hidden leaf. Safe for concurrent use on one tree.
func (t *Tree) AllHidden(g Geometry, keys []uint64, levels []int8) bool {
	if len(keys) == 0 {
		return true
	}
	w := statusWalk{keys: keys, levels: levels[:len(keys)]}
	if len(t.refs) == 0 {
		return w.allHiddenFlat(t, 0, g.K, 0, 0, len(keys))
	}
	for i, k := range keys {
		if t.statusAt(g, k, levels[i]) != Hidden {
			return false
		}
	}
	return true
}

// statusAt is QuadStatus of the quad of level l whose top-left cell has
// Morton code k.
func (t *Tree) statusAt(g Geometry, k uint64, l int8) Status {
	x, y := unMorton(k)
	return t.QuadStatus(g, int(l), x>>l, y>>l)
}

// unMorton returns the cell of Morton code k (MortonCode's inverse).
func unMorton(k uint64) (col, row int) {
	return int(compact(k)), int(compact(k >> 1))
}

// compact gathers the even bits of v into its low 32 bits.
func compact(v uint64) uint64 {
	v &= 0x5555555555555555
	v = (v | v>>1) & 0x3333333333333333
	v = (v | v>>2) & 0x0f0f0f0f0f0f0f0f
	v = (v | v>>4) & 0x00ff00ff00ff00ff
	v = (v | v>>8) & 0x0000ffff0000ffff
	v = (v | v>>16) & 0xffffffff
	return v
}

// allHiddenFlat is AllHidden's walk of quads lo…hi-1 (at least one) inside
// the node at position pos of a tree without references, of level l and
// first Morton code m.
func (w *statusWalk) allHiddenFlat(t *Tree, pos, l int, m uint64, lo, hi int) bool {
	switch t.code(pos) {
	case Hidden:
		return true
	case Unknown:
		if l == 0 || w.keys[lo] == m && int(w.levels[lo]) == l {
			return false // a quad equal to an Unknown node is not hidden
		}
	default:
		return false
	}
	base := t.childBase(pos)
	span := uint64(1) << (2 * (l - 1))
	for k := range 4 {
		end := hi
		if k < 3 {
			end = w.upTo(lo, hi, m+uint64(k+1)*span)
		}
		if end > lo && !w.allHiddenFlat(t, base+k, l-1, m+uint64(k)*span, lo, end) {
			return false
		}
		lo = end
		if lo == hi {
			return true
		}
	}
	return true
}

// statusWalk is QuadStatuses' depth-first walk.
type statusWalk struct {
	keys   []uint64
	levels []int8
	dst    []Status
}

// walkFlat answers quads lo…hi-1, all inside the node at position pos of
// a tree without references, of level l whose top-left cell has Morton code
// m: quads equal to the node first (the levels descend), then all of them
// at a leaf, or child by child.
func (w *statusWalk) walkFlat(t *Tree, pos, l int, m uint64, lo, hi int) {
	s := t.code(pos)
	for lo < hi && w.keys[lo] == m && int(w.levels[lo]) == l {
		w.dst[lo] = s
		lo++
	}
	if lo == hi {
		return
	}
	if s != Unknown || l == 0 {
		for i := lo; i < hi; i++ {
			w.dst[i] = s
		}
		return
	}
	base := t.childBase(pos)
	span := uint64(1) << (2 * (l - 1))
	for k := range 4 {
		end := hi
		if k < 3 {
			lim := m + uint64(k+1)*span
			end = w.upTo(lo, hi, lim)
		}
		if end > lo {
			w.walkFlat(t, base+k, l-1, m+uint64(k)*span, lo, end)
		}
		lo = end
		if lo == hi {
			return
		}
	}
}

// upTo returns the first of quads lo…hi-1 whose key is at least lim (hi
// if none).
func (w *statusWalk) upTo(lo, hi int, lim uint64) int {
	if hi-lo <= 8 {
		for lo < hi && w.keys[lo] < lim {
			lo++
		}
		return lo
	}
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if w.keys[h] < lim {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// lanes is how many trees QuadStatusIn descends at once.
const lanes = 8

// QuadStatusIn sets dst[k] to the status of the quad of level l at (qx,qy)
// in h's tree trees[k] (a quad index, QuadIndex) — QuadStatus of one quad in
// many trees. The descents run side by side, eight trees a step at a time,
// so that the memory reads of different trees overlap where one descent
// after another waits on each: the trees of a large hierarchy are far apart
// in memory. len(dst) must be at least len(trees); the quad must intersect
// the terrain. Safe for concurrent use.
func (h *Hierarchy) QuadStatusIn(trees []int32, l, qx, qy int, dst []Status) {
	dst = dst[:len(trees)]
	if h.refStart != nil || h.coded != nil {
		for k, q := range trees {
			t := h.PVS(int(q))
			dst[k] = t.QuadStatus(h.G, l, qx, qy)
		}
		return
	}
	depth := h.G.K - l
	for lo := 0; lo < len(trees); lo += lanes {
		m := min(lanes, len(trees)-lo)
		var (
			codes [lanes][]uint64 // the trees' code words
			ranks [lanes][]uint32 // and rank samples
			pos   [lanes]int      // the node each lane stands on
			done  [lanes]bool
		)
		for k := range m {
			t := h.PVS(int(trees[lo+k])) // a view: flat or stored
			codes[k], ranks[k] = t.codes, t.rank
		}
		left := m
		for d := 0; left > 0; d++ {
			shift := uint(depth - d - 1)
			child := int(qy>>shift&1)<<1 | int(qx>>shift&1)
			for k := range m {
				if done[k] {
					continue
				}
				i := pos[k]
				c := Status(codes[k][i>>5] >> (uint(i&31) * 2) & 3)
				if c != Unknown || d == depth {
					dst[lo+k], done[k] = c, true
					left--
					continue
				}
				// The first child of the Unknown code at i (childBase).
				pos[k] = 4*rankIn(codes[k], ranks[k], i) + 1 + child
			}
		}
	}
}
