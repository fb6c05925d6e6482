package quadtree

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Hierarchy is a terrain's hierarchical PVS (§3.2, Figure 3.3): one tree for
// every quad of every level of the terrain's quad decomposition that
// intersects the terrain. Level 0 quads are the cells (the per-point PVSs);
// the quad of level l at column x, row y covers cells [x·2^l, (x+1)·2^l) ×
// [y·2^l, (y+1)·2^l) and its PVS is the union of its children's.
//
// Layout: quads are numbered level by level, row-major within a level:
// quad (l,x,y) has index LevelStart[l] + y·cols(l) + x, with cols(l), rows(l)
// from Geometry.QuadsAcross. A flat hierarchy's arrays (Flat, FlatOf)
// concatenate all trees' code words in Codes (tree q at
// Codes[CodeStart[q]:], its ⌈Len[q]/32⌉ words) and their rank samples in
// Ranks (from RankStart[q], ⌈Len[q]/64⌉ samples); Len[q] and NodeCount[q]
// are the tree's code and node counts (trees are appended in Morton order,
// not index order). A shared hierarchy (Share, share.go) stores its shared
// subtrees as trees Quads() … Quads()+SharedSubtrees()−1 of the same
// arrays, and each tree's references in RefStart and Refs. A hierarchy read
// in place (NewStored) or coded (NewCoded) keeps its trees in the store's
// mapping or as blocks instead; read its trees through PVS. A Hierarchy is
// read-only once built and safe for concurrent readers.
type Hierarchy struct {
	Layout             // G and LevelStart
	codeStart []uint64 // per tree, in words
	rankStart []uint64 // per tree, in samples
	lens      []uint32 // codes per tree
	nodeCount []uint32 // nodes per tree (those its references stand for included)
	codes     []uint64
	ranks     []uint32

	shared   int      // shared subtrees (0 without sharing)
	refStart []uint32 // per tree and one more: its first reference; nil without sharing
	refs     []uint32 // each reference: code position << RefBits | shared subtree
	refBits  int      // bits of a reference that name its shared subtree (1 to 31)

	coded  *codedTrees // a coded hierarchy's blocks and cache (coded.go); nil when flat
	stored *lazyFlat   // a flat hierarchy read in place (NewStored, lazy.go); nil otherwise
	fails  *failures   // stored or coded: the first tree that failed its checks (Err)
}

// QuadCount returns the number of quads of all levels that intersect the
// terrain (133,200 for a 316×316 terrain).
func (g Geometry) QuadCount() int {
	n := 0
	for l := range g.Levels() {
		c, r := g.QuadsAcross(l)
		n += c * r
	}
	return n
}

// Layout numbers the quads of geometry G's hierarchy level by level,
// row-major within a level: quad (l,x,y) has index LevelStart[l] +
// y·cols(l) + x, with cols(l) from Geometry.QuadsAcross (§3.2). It holds
// Levels()+1 integers: where only the indexes are needed (a bake's
// writers), it stands in for a Hierarchy, whose per-quad arrays take 24
// bytes a quad (537 MB at 4097²).
type Layout struct {
	G          Geometry
	LevelStart []int // len Levels()+1
}

// Layout returns g's quad index layout.
func (g Geometry) Layout() Layout {
	lo := Layout{G: g, LevelStart: make([]int, g.Levels()+1)}
	for l := range g.Levels() {
		c, r := g.QuadsAcross(l)
		lo.LevelStart[l+1] = lo.LevelStart[l] + c*r
	}
	return lo
}

// Quads returns the number of quads (trees of a hierarchy, shared
// subtrees excluded).
func (lo Layout) Quads() int { return lo.LevelStart[len(lo.LevelStart)-1] }

// QuadIndex returns the index of quad (l,x,y).
func (lo Layout) QuadIndex(l, x, y int) int {
	c, _ := lo.G.QuadsAcross(l)
	return lo.LevelStart[l] + y*c + x
}

// Level returns the level of quad index q (0: the cells).
func (lo Layout) Level(q int) int {
	l := 0
	for l+2 < len(lo.LevelStart) && lo.LevelStart[l+1] <= q {
		l++
	}
	return l
}

// parentOf returns the index of quad q's parent quad; q must be below the
// top quad (index Quads()−1).
func (h *Hierarchy) parentOf(q int) int {
	l := h.Level(q)
	c, _ := h.G.QuadsAcross(l)
	off := q - h.LevelStart[l]
	return h.QuadIndex(l+1, off%c>>1, off/c>>1)
}

// EachWithParent calls fn with every quad's tree and its parent quad's
// tree (the quad of the level above holding it; nil for the top quad),
// stopping at fn's first error, which it returns: in index order, or for a
// coded hierarchy depth first from the top quad, each tree decoded once
// (a block that fails its checks is the error; so is, in a flat hierarchy
// read in place, a tree that fails its checks: Err's). The trees are valid
// during the call.
func (h *Hierarchy) EachWithParent(fn func(q int, t, parent *Tree) error) error {
	if h.coded != nil {
		return h.coded.eachCoded(h, fn)
	}
	top := h.Quads() - 1
	for q := range h.Quads() {
		t := h.PVS(q)
		var p *Tree
		if q != top {
			pt := h.PVS(h.parentOf(q))
			p = &pt
		}
		if err := h.Err(); err != nil {
			return err // a stored tree failed its checks (read in place)
		}
		if err := fn(q, &t, p); err != nil {
			return err
		}
	}
	return nil
}

// flatTree returns the view of a tree of n codes (nodes nodes) whose words
// start at word c of codes and whose rank samples start at sample r of
// ranks: ⌈n/32⌉ words and ⌈n/64⌉ samples.
func flatTree(codes []uint64, ranks []uint32, c, r uint64, n, nodes int) Tree {
	cw, rw := uint64((n+31)/32), uint64((n+63)/64)
	return Tree{codes: codes[c : c+cw : c+cw], rank: ranks[r : r+rw : r+rw], n: n, nodes: nodes}
}

// PVS returns the tree of quad index q as a view into h's arrays (no copy;
// do not modify it). A coded hierarchy (NewCoded) decodes it, or its
// parent's first, unless its level is pinned or the tree is in the cache;
// the tree stays valid after the cache drops it.
func (h *Hierarchy) PVS(q int) Tree {
	if h.coded != nil {
		return h.coded.tree(h, q)
	}
	if h.stored != nil {
		return h.storedTree(q)
	}
	t := flatTree(h.codes, h.ranks, h.codeStart[q], h.rankStart[q], int(h.lens[q]), int(h.nodeCount[q]))
	if h.refStart != nil {
		lo, hi := h.refStart[q], h.refStart[q+1]
		if lo < hi {
			t.refs, t.refBits, t.h = h.refs[lo:hi:hi], uint8(h.refBits), h
		}
	}
	return t
}

// Bytes returns the memory the trees take: codes, rank samples, and per
// tree two 8-byte starts and two 4-byte counts; a shared hierarchy adds 4
// bytes per tree (RefStart) and refBytes per reference. A coded
// hierarchy's: see NewCoded.
func (h *Hierarchy) Bytes() int {
	if h.coded != nil {
		return h.coded.bytes(h.Quads())
	}
	if h.stored != nil {
		return 8*len(h.stored.Words) + 16*h.Quads()
	}
	b := 8*len(h.codes) + 4*len(h.ranks) + 24*len(h.lens)
	if h.refStart != nil {
		b += 4*len(h.refStart) + refBytes*len(h.refs)
	}
	return b
}

// MortonCells appends to dst the terrain's cells in Morton (Z) order of the
// covering square, as (col,row) pairs: the order HierarchyBuilder.Add wants.
// Pairs are int32, 8 bytes a cell (134 MB on a 4097² terrain).
func (g Geometry) MortonCells(dst [][2]int32) [][2]int32 {
	// Sized once: grown by appends, a 4097² map's cells (268 MB at 16
	// bytes a cell) left 960 MB of garbage at the start of a bake, its
	// peak heap.
	dst = slices.Grow(dst, g.Width*g.Height)
	var walk func(depth, x, y int)
	walk = func(depth, x, y int) {
		if g.outside(quadPos{depth, x, y}) {
			return
		}
		if depth == g.K {
			dst = append(dst, [2]int32{int32(x), int32(y)})
			return
		}
		for k := range 4 {
			walk(depth+1, 2*x+k&1, 2*y+k>>1)
		}
	}
	walk(0, 0, 0)
	return dst
}

// Emit receives the finished, canonical PVS of quad (l,x,y): the exact union
// of its cells' PVSs. It must not retain t, which the builder reuses; node
// budgets (§3.4) apply here, to a copy, so that parents are always built from
// their children's uncompressed PVSs.
type Emit func(l, x, y int, t *Tree) error

// HierarchyBuilder builds a hierarchical PVS from per-point PVS trees
// streamed in Morton order, so that only one partial union per level is held
// at a time, never all the per-point PVSs: when the last child of a quad
// arrives, the quad's union is finished, normalised and emitted, and merged
// into its parent's partial union. Quads are emitted in post-order: a quad's
// whole subtree, then the quad. It is not safe for concurrent use.
type HierarchyBuilder struct {
	g     Geometry
	emit  Emit
	m     Merger
	z     Normalizer
	span  Span
	acc   []Tree // acc[l]: partial union of the current quad of level l (l ≥ 1)
	has   []bool // acc[l] holds something
	tmp   [2]Tree
	next  int // index in order of the next quad expected
	order [][2]int32
}

// Span is the part of a hierarchy a HierarchyBuilder builds: it takes the
// PVSs of the quads of level Base whose ranks in the Morton order of that
// level are First ≤ r < Last, and merges and emits them up to level Top:
// quads of level Top are emitted but not merged further. A sharded bake
// builds each shard's whole subtrees of some level L with Span{0, L, …}
// and joins their roots with Span{L, K, 0, count}.
type Span struct {
	Base, Top   int // levels, 0 ≤ Base ≤ Top ≤ K
	First, Last int // Morton ranks among the quads of level Base
}

// NewHierarchyBuilder returns a builder for geometry g that hands every
// finished quad to emit: the whole hierarchy, from the cells to the root.
func NewHierarchyBuilder(g Geometry, emit Emit) *HierarchyBuilder {
	b, _ := NewSpanBuilder(g, Span{Top: g.K, Last: -1}, emit)
	return b
}

// NewSpanBuilder returns a builder for the part s of geometry g's hierarchy;
// Last < 0 means through the last quad of level Base. Errors name a span
// outside g.
func NewSpanBuilder(g Geometry, s Span, emit Emit) (*HierarchyBuilder, error) {
	if s.Base < 0 || s.Base > s.Top || s.Top > g.K {
		return nil, fmt.Errorf("quadpvs: span of levels %d to %d in a hierarchy of %d levels", s.Base, s.Top, g.Levels())
	}
	order := g.MortonQuads(s.Base, nil)
	if s.Last < 0 {
		s.Last = len(order)
	}
	if s.First < 0 || s.First > s.Last || s.Last > len(order) {
		return nil, fmt.Errorf("quadpvs: span of quads %d to %d of the %d of level %d", s.First, s.Last, len(order), s.Base)
	}
	return &HierarchyBuilder{
		g: g, emit: emit, span: s,
		acc: make([]Tree, g.Levels()), has: make([]bool, g.Levels()),
		order: order[s.First:s.Last],
	}, nil
}

// MortonQuads appends to dst the quads of level l that intersect the
// terrain, in Morton (Z) order, as (x,y) pairs; for l = 0 these are
// MortonCells.
func (g Geometry) MortonQuads(l int, dst [][2]int32) [][2]int32 {
	c, r := g.QuadsAcross(l)
	return Geometry{Width: c, Height: r, K: g.K - l}.MortonCells(dst)
}

// Order returns the quads (cells for the whole hierarchy) in the order Add
// wants them: Morton order, the span's part of it.
func (b *HierarchyBuilder) Order() [][2]int32 { return b.order }

// Add takes the PVS tree of quad (x,y) of the span's base level (cell
// (col,row) for the whole hierarchy), which must be the next of Order().
// Add may swap t's memory with its own buffers: t is left holding some
// reusable tree memory, not the quad's PVS. Errors are emit's, or an
// out-of-order quad.
func (b *HierarchyBuilder) Add(x, y int, t *Tree) error {
	if b.next >= len(b.order) || int(b.order[b.next][0]) != x || int(b.order[b.next][1]) != y {
		return fmt.Errorf("quadpvs: quad (%d,%d) of level %d added out of Morton order", x, y, b.span.Base)
	}
	b.next++
	return b.climb(b.span.Base, x, y, t)
}

// climb emits t, the finished PVS of quad (l,x,y), merges it into its
// parent's partial union, and goes on up while the parent is complete.
func (b *HierarchyBuilder) climb(l, x, y int, t *Tree) error {
	for ; ; l++ {
		// t is the finished PVS of quad (l,x,y).
		if err := b.emit(l, x, y, t); err != nil {
			return err
		}
		if l == b.span.Top {
			return nil
		}
		if !b.has[l+1] {
			b.acc[l+1], *t = *t, b.acc[l+1] // adopt t's memory as the partial union
			b.has[l+1] = true
		} else {
			b.m.MergeInto(&b.acc[l+1], &b.tmp[0], t, Lossless)
		}
		if !b.lastChild(l, x, y) {
			return nil
		}
		// The parent is complete.
		b.has[l+1] = false
		b.z.Normalize(&b.tmp[1], &b.acc[l+1])
		t = &b.tmp[1]
		x, y = x>>1, y>>1
	}
}

// BlockPoints is how many points (cells) a block of AddBlock holds: the
// level-2 quad of 4×4 cells.
const BlockPoints = 16

// AddBlock takes the PVSs of a block of points that a block engine computes
// at once (horizon.BlockWorker, quadpvs.Encoder.EncodeBlockTrees): the cells of
// level-2 quad (x,y), which must be the next of Order(). pts[b] is the PVS
// of cell (4x + b%4, 4y + b/4), l1[j] that of the block's level-1 quad j
// (Morton order: j = 2·(row bit) + column bit), l2 that of the block; the
// entries of cells and quads outside the terrain are ignored. It emits
// them in the order Add would — each level-1 quad after its cells, the
// block after them — and merges from level 2 up, so that the quads of
// levels 0 and 1 cost no merge. The span must be the whole of levels 0…2
// at least (Base 0, Top ≥ 2). Like Add, it may swap l2's memory with its
// own buffers. Errors are emit's, or an out-of-order or misplaced block.
func (b *HierarchyBuilder) AddBlock(x, y int, pts *[BlockPoints]*Tree, l1 *[4]*Tree, l2 *Tree) error {
	if b.span.Base != 0 || b.span.Top < 2 {
		return fmt.Errorf("quadpvs: blocks need a span from the cells to level 2 at least, not %d to %d", b.span.Base, b.span.Top)
	}
	c0, r0 := 4*x, 4*y
	g := b.g
	for j := range 4 {
		qx, qy := 2*x+j&1, 2*y+j>>1
		if 2*qx >= g.Width || 2*qy >= g.Height {
			continue
		}
		for k := range 4 {
			c, r := 2*qx+k&1, 2*qy+k>>1
			if c >= g.Width || r >= g.Height {
				continue
			}
			if b.next >= len(b.order) || int(b.order[b.next][0]) != c || int(b.order[b.next][1]) != r {
				return fmt.Errorf("quadpvs: block (%d,%d) added out of Morton order", x, y)
			}
			b.next++
			if err := b.emit(0, c, r, pts[(r-r0)*4+c-c0]); err != nil {
				return err
			}
		}
		if err := b.emit(1, qx, qy, l1[j]); err != nil {
			return err
		}
	}
	return b.climb(2, x, y, l2)
}

// lastChild reports whether quad (l,x,y) is the last of its parent's
// children inside the terrain in Morton order.
func (b *HierarchyBuilder) lastChild(l, x, y int) bool {
	c, r := b.g.QuadsAcross(l)
	k := (y&1)<<1 | x&1
	for k2 := k + 1; k2 < 4; k2++ {
		sx, sy := x&^1+k2&1, y&^1+k2>>1
		if sx < c && sy < r {
			return false
		}
	}
	return true
}

// Done reports whether every quad of Order() has been added.
func (b *HierarchyBuilder) Done() bool { return b.next == len(b.order) }

// BuilderState is what a HierarchyBuilder holds between two Adds, for a
// bake that stops and resumes: how many quads of Order() were added, and
// per level the partial union of the quad under way (nil where none).
type BuilderState struct {
	Next     int
	Partials []*Tree // by level
}

// StateOf returns b's state; its trees are b's own, valid until b is used
// again.
func StateOf(b *HierarchyBuilder) BuilderState {
	s := BuilderState{Next: b.next, Partials: make([]*Tree, len(b.acc))}
	for l := range b.acc {
		if b.has[l] {
			s.Partials[l] = &b.acc[l]
		}
	}
	return s
}

// Restore makes b, a new builder of the same geometry and span, continue
// from s (copying its trees), as the builder whose StateOf it was. Errors: a
// state of another builder (more quads than Order(), another number of
// levels, a partial union at level 0).
func Restore(b *HierarchyBuilder, s BuilderState) error {
	if s.Next < 0 || s.Next > len(b.order) || len(s.Partials) != len(b.acc) || s.Partials[0] != nil {
		return fmt.Errorf("quadpvs: a builder state of %d quads and %d levels for a builder of %d and %d", s.Next, len(s.Partials), len(b.order), len(b.acc))
	}
	b.next = s.Next
	for l, t := range s.Partials {
		b.has[l] = t != nil
		if t != nil {
			t.CopyTo(&b.acc[l])
		}
	}
	return nil
}

// NewHierarchy returns an empty Hierarchy of geometry g, to be filled with
// Set in any order.
func NewHierarchy(g Geometry) *Hierarchy {
	h := &Hierarchy{Layout: g.Layout()}
	n := h.Quads()
	h.codeStart = make([]uint64, n)
	h.rankStart = make([]uint64, n)
	h.lens = make([]uint32, n)
	h.nodeCount = make([]uint32, n)
	return h
}

// Set appends a copy of t as the PVS of quad (l,x,y).
func (h *Hierarchy) Set(l, x, y int, t *Tree) {
	q := h.QuadIndex(l, x, y)
	h.codeStart[q] = uint64(len(h.codes))
	h.rankStart[q] = uint64(len(h.ranks))
	h.codes = append(h.codes, t.codes...)
	h.ranks = append(h.ranks, t.rank...)
	h.lens[q] = uint32(t.n)
	h.nodeCount[q] = uint32(t.nodes)
}

// BuildRanks computes Ranks and RankStart from Codes, CodeStart and Len, for
// a Hierarchy read from storage, and checks every tree's shape (checkShape)
// and node count, splitting the quads between GOMAXPROCS goroutines, then a
// shared hierarchy's references (share.go). Errors are *FormatError naming
// the quad index (the lowest bad one) or shared subtree.
func (h *Hierarchy) BuildRanks() error {
	trees := h.Quads() + h.shared
	if len(h.lens) != trees || len(h.codeStart) != trees || len(h.rankStart) != trees || len(h.nodeCount) != trees ||
		(h.shared > 0 || h.refStart != nil) && len(h.refStart) != trees+1 {
		return &FormatError{0, fmt.Sprintf("index of %d trees for %d quads and %d shared subtrees", len(h.lens), h.Quads(), h.shared)}
	}
	total := uint64(0)
	for q, n := range h.lens {
		// In uint64: n+31 overflows uint32 for counts near 2^32.
		c, cw := h.codeStart[q], (uint64(n)+31)/32
		if n == 0 || c > uint64(len(h.codes)) || cw > uint64(len(h.codes))-c {
			return &FormatError{0, fmt.Sprintf("quad %d: %d codes at word %d of %d", q, n, c, len(h.codes))}
		}
		h.rankStart[q] = total
		total += (uint64(n) + 63) / 64
	}
	h.ranks = make([]uint32, total)
	workers := min(runtime.GOMAXPROCS(0), 16)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := len(h.lens)*w/workers, len(h.lens)*(w+1)/workers
			for q := lo; q < hi; q++ {
				if err := h.rankTree(q); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if h.refStart != nil {
		return h.checkRefs()
	}
	return nil
}

// rankTree fills tree q's rank samples and checks it, in one pass over its
// words.
func (h *Hierarchy) rankTree(q int) error {
	n := int(h.lens[q])
	c, cw := h.codeStart[q], uint64((n+31)/32)
	codes := h.codes[c : c+cw : c+cw]
	ranks := h.ranks[h.rankStart[q] : h.rankStart[q]+uint64((n+63)/64)]
	r, outside := uint32(0), 0
	for j, w := range codes {
		if j&1 == 0 {
			ranks[j>>1] = r
		}
		r += uint32(bits.OnesCount64(unknownMask(w)))
		outside += bits.OnesCount64(w & (w >> 1) & lowBits) // code 11; bits past n are zero
	}
	t := Tree{codes: codes, rank: ranks, n: n}
	if err := checkShape(h.G, &t); err != nil {
		fe := err.(*FormatError)
		return &FormatError{fe.Offset, fmt.Sprintf("quad %d: %s", q, fe.Msg)}
	}
	if h.refStart != nil && h.refStart[q] != h.refStart[q+1] {
		return nil // references: checkRefs counts the nodes
	}
	if nodes := n - outside; uint32(nodes) != h.nodeCount[q] {
		return &FormatError{0, fmt.Sprintf("quad %d: %d nodes recorded, %d present", q, h.nodeCount[q], nodes)}
	}
	return nil
}

// Flat is a flat hierarchy's arrays, as Hierarchy's comment lays them out:
// what a store of format versions 1–3 holds and writes (package compress).
type Flat struct {
	CodeStart []uint64 // per tree, in words of Codes
	RankStart []uint64 // per tree, in samples of Ranks (filled by NewFlat)
	Len       []uint32 // codes per tree
	NodeCount []uint32 // nodes per tree (those its references stand for included)
	Codes     []uint64
	Ranks     []uint32 // rank samples (filled by NewFlat)

	Shared   int      // shared subtrees (0 without sharing)
	RefStart []uint32 // per tree and one more: its first reference; nil without sharing
	Refs     []uint32 // each reference: code position << RefBits | shared subtree
	RefBits  int      // bits of a reference that name its shared subtree (1 to 31)
}

// NewFlat returns the hierarchy of geometry g whose trees are f's (f.Len
// and f.NodeCount: Quads()+f.Shared entries, f.RefStart one more), their
// rank samples built; the errors are BuildRanks's (a *FormatError where the
// arrays disagree). h keeps f's slices.
func NewFlat(g Geometry, f Flat) (*Hierarchy, error) {
	h := &Hierarchy{Layout: g.Layout(), codeStart: f.CodeStart, lens: f.Len, nodeCount: f.NodeCount, codes: f.Codes,
		rankStart: make([]uint64, len(f.CodeStart)), shared: f.Shared, refStart: f.RefStart, refs: f.Refs, refBits: f.RefBits}
	if err := h.BuildRanks(); err != nil {
		return nil, err
	}
	return h, nil
}

// FlatOf returns h's arrays: all nil for a coded hierarchy (NewCoded); only
// Len and NodeCount for one read in place (NewStored). They are h's own:
// do not modify them.
func FlatOf(h *Hierarchy) Flat {
	return Flat{CodeStart: h.codeStart, RankStart: h.rankStart, Len: h.lens, NodeCount: h.nodeCount, Codes: h.codes, Ranks: h.ranks,
		Shared: h.shared, RefStart: h.refStart, Refs: h.refs, RefBits: h.refBits}
}

// SharedSubtrees returns how many shared subtrees h stores (Share; 0
// without sharing): trees Quads() … Quads()+SharedSubtrees()−1 of PVS.
func (h *Hierarchy) SharedSubtrees() int { return h.shared }
