package quadtree

import (
	"fmt"
	"math/bits"
	"sync/atomic"
)

// Trees read from storage in place (a mapped store file, compress.Open)
// are checked when first read rather than all at open, so that opening
// costs nothing per tree and memory follows what is read. A tree that
// fails its checks reads as the conservative tree — one Visible root: it
// hides nothing, so a frontier set grown from it is smaller but never
// wrong (§3.3's direction of error) — and the hierarchy keeps the first
// failure, which Err returns.

// TreeError reports a stored tree that failed its checks when first read.
type TreeError struct {
	Quad int // the quad index (a shared subtree's index after the quads')
	// Region names what was bad (RegionCodes, RegionIndex, RegionBlocks)
	// and Offset where in it, in bytes from the region's start.
	Region int
	Offset int64
	Msg    string
}

// Regions of stored trees, for TreeError and Stored.Verify.
const (
	RegionIndex  = iota // the per-tree index: tree q's entry
	RegionCodes         // a flat hierarchy's code words and rank samples
	RegionBlocks        // a coded hierarchy's blocks
)

func (e *TreeError) Error() string {
	return fmt.Sprintf("quadpvs: quad %d: %s", e.Quad, e.Msg)
}

// conservativeWords backs every conservative tree: one Visible code.
var conservativeWords = [1]uint64{uint64(Visible)}
var conservativeRank = [1]uint32{0}

// conservativeTree returns the tree that stands for a tree that failed its
// checks: a Visible root, hiding nothing.
func conservativeTree() Tree {
	return Tree{codes: conservativeWords[:], rank: conservativeRank[:], n: 1, nodes: 1}
}

// isConservative reports whether t is conservativeTree's.
func isConservative(t *Tree) bool {
	return t.n == 1 && len(t.codes) == 1 && &t.codes[0] == &conservativeWords[0]
}

// failures keeps a hierarchy's first tree failure.
type failures struct {
	first atomic.Pointer[TreeError]
}

func (f *failures) fail(e *TreeError) { f.first.CompareAndSwap(nil, e) }

// Err returns the first failure of a stored tree's checks (a *TreeError),
// nil when every tree read so far passed. Trees that failed read as one
// Visible node (they hide nothing). Safe for concurrent use.
func (h *Hierarchy) Err() error {
	if h.fails == nil {
		return nil
	}
	if e := h.fails.first.Load(); e != nil {
		return e
	}
	return nil
}

// maxTreeCodes bounds the codes of any tree of geometry g: the root and
// four codes per Unknown node, every Unknown node a distinct quad of levels
// 1 to K that intersects the terrain.
func maxTreeCodes(g Geometry) int64 {
	return 1 + 4*(int64(g.QuadCount())-int64(g.Width)*int64(g.Height))
}

// checkOutside checks that t's Outside codes stand exactly where g puts
// quads wholly outside the terrain (checkShape, or the decoder, must have
// passed, and t's rank samples be its codes'). Only nodes whose quad
// straddles the terrain's edge are walked — a quad wholly outside must be
// an Outside leaf, one wholly inside holds no Outside code — and the
// Outside codes of the whole tree, counted a word at a time, must be those
// the walk met: O(codes/32 + nodes along the edge) instead of O(codes).
// pos is scratch for one level's straddling Unknown nodes (code index,
// then x in the high 16 bits and y in the low), returned for reuse; it
// allocates nothing once pos has grown.
func checkOutside(g Geometry, t *Tree, pos []uint32) ([]uint32, error) {
	pos = pos[:0]
	if (t.code(0) == Outside) != g.outside(quadPos{}) {
		return pos, &FormatError{0, "root's outside code disagrees with the terrain"}
	}
	outside := 0
	for _, w := range t.codes {
		outside += bits.OnesCount64(w & (w >> 1) & lowBits)
	}
	met := 0
	if t.code(0) == Unknown && g.straddles(quadPos{}) {
		pos = append(pos, 0, 0)
	}
	for depth := 1; len(pos) > 0; depth++ {
		n := len(pos)
		for j := 0; j < n; j += 2 {
			i, x, y := int(pos[j]), int(pos[j+1]>>16), int(pos[j+1]&0xffff)
			base := t.childBase(i)
			if base+3 >= t.n {
				return pos, &FormatError{i, "children past the tree's end"}
			}
			for k := range 4 {
				c := quadPos{depth, 2*x + k&1, 2*y + k>>1}
				s, out := t.code(base+k), g.outside(c)
				if (s == Outside) != out {
					return pos, &FormatError{base + k, fmt.Sprintf("%s code for a quad %s the terrain", s, map[bool]string{true: "outside", false: "inside"}[out])}
				}
				if out {
					met++
				} else if s == Unknown && g.straddles(c) {
					pos = append(pos, uint32(base+k), uint32(c.x)<<16|uint32(c.y))
				}
			}
		}
		pos = pos[:copy(pos, pos[n:])]
	}
	if outside != met {
		return pos, &FormatError{0, fmt.Sprintf("%d Outside codes for quads inside the terrain", outside-met)}
	}
	return pos, nil
}

// Stored are a flat hierarchy's trees as a store file holds them, to be
// read in place (NewStored): every tree's record in Words — its ⌈n/32⌉
// code words, then its ⌈n/64⌉ rank samples two to a word (the lower half
// first) — at the word Start[q] of its index entry, with n = Len[q] codes
// and NodeCount[q] nodes. Records may come in any order.
type Stored struct {
	Words     []uint64
	Start     []uint64 // per quad, in words
	Len       []uint32 // codes per quad
	NodeCount []uint32 // nodes per quad
	// CeilingCodes and CeilingNodes, when above 0, bound every tree
	// (the store's cap or allocation ceiling).
	CeilingCodes, CeilingNodes int
	// Verify, when not nil, checks the stored bytes behind a tree before
	// it is first read (checksums): region RegionIndex with lo = hi = q
	// for tree q's index entry, RegionCodes with words [lo, hi) of Words.
	Verify func(region int, lo, hi uint64) error
}

// lazyFlat is a Stored hierarchy's reading state: which trees passed.
type lazyFlat struct {
	Stored
	ranks   []uint32        // Words seen as uint32s: the rank samples
	checked []atomic.Uint64 // bit q: tree q passed its checks
	max     int64           // codes a tree may hold
}

// NewStored returns the hierarchy of geometry g held in place by s: no
// tree is read until PVS asks for it; then it is checked — its index
// entry within Words and under the ceilings, s.Verify, its rank samples
// recomputed, its shape (checkShape), node count and Outside codes — once.
// ranks must be Words seen as uint32s (little-endian halves: element 2i is
// the low half of word i); it is the caller's, who maps the file.
// A tree that fails reads as one Visible node and Err reports it. Bytes
// counts the words and 16 bytes per quad. Errors: index slices whose
// lengths are not the quad count.
func NewStored(g Geometry, s Stored, ranks []uint32) (*Hierarchy, error) {
	h := &Hierarchy{Layout: g.Layout()} // no per-quad arrays: the file's stand for them
	quads := h.Quads()
	if len(s.Start) != quads || len(s.Len) != quads || len(s.NodeCount) != quads || len(ranks) != 2*len(s.Words) {
		return nil, &FormatError{0, fmt.Sprintf("stored hierarchy: index of %d, %d, %d entries for %d quads", len(s.Start), len(s.Len), len(s.NodeCount), quads)}
	}
	h.lens, h.nodeCount = s.Len, s.NodeCount
	lf := &lazyFlat{Stored: s, ranks: ranks, checked: make([]atomic.Uint64, (quads+63)/64), max: maxTreeCodes(g)}
	if s.CeilingCodes > 0 {
		lf.max = min(lf.max, int64(s.CeilingCodes))
	}
	h.stored, h.fails = lf, new(failures)
	return h, nil
}

// storedTree returns tree q of a Stored hierarchy, checking it on its
// first read.
func (h *Hierarchy) storedTree(q int) Tree {
	lf := h.stored
	w := &lf.checked[q>>6]
	if w.Load()&(1<<(q&63)) == 0 {
		if err := lf.check(h.G, q); err != nil {
			h.fails.fail(err)
			return conservativeTree()
		}
		w.Or(1 << (q & 63))
	}
	return lf.view(q)
}

// view returns tree q's view (its entry checked).
func (lf *lazyFlat) view(q int) Tree {
	n := int(lf.Len[q])
	c := lf.Start[q]
	cw := uint64((n + 31) / 32)
	rw := uint64((n + 63) / 64)
	return Tree{codes: lf.Words[c : c+cw : c+cw], rank: lf.ranks[2*(c+cw) : 2*(c+cw)+rw : 2*(c+cw)+rw], n: n, nodes: int(lf.NodeCount[q])}
}

// recordWords returns the words of a record of n codes: code words, then
// rank samples two to a word.
func recordWords(n int) uint64 {
	return uint64((n+31)/32) + uint64(((n+63)/64+1)/2)
}

// check runs tree q's checks (see NewStored).
func (lf *lazyFlat) check(g Geometry, q int) *TreeError {
	bad := func(region int, off int64, format string, a ...any) *TreeError {
		return &TreeError{Quad: q, Region: region, Offset: off, Msg: fmt.Sprintf(format, a...)}
	}
	if lf.Verify != nil {
		if err := lf.Verify(RegionIndex, uint64(q), uint64(q)); err != nil {
			return bad(RegionIndex, 0, "index entry: %v", err)
		}
	}
	n, nodes, c := int64(lf.Len[q]), int64(lf.NodeCount[q]), lf.Start[q]
	switch {
	case n < 1 || n > lf.max:
		return bad(RegionIndex, 0, "%d codes, want 1 to %d", n, lf.max)
	case nodes > n || lf.CeilingNodes > 0 && nodes > int64(lf.CeilingNodes):
		return bad(RegionIndex, 0, "%d nodes in %d codes (ceiling %d nodes)", nodes, n, lf.CeilingNodes)
	case c > uint64(len(lf.Words)) || recordWords(int(n)) > uint64(len(lf.Words))-c:
		return bad(RegionIndex, 0, "record of %d codes at word %d of %d", n, c, len(lf.Words))
	}
	if lf.Verify != nil {
		if err := lf.Verify(RegionCodes, c, c+recordWords(int(n))); err != nil {
			return bad(RegionCodes, int64(8*c), "%v", err)
		}
	}
	t := lf.view(q)
	// The rank samples must be those of the codes.
	r := uint32(0)
	for j, w := range t.codes {
		if j&1 == 0 && t.rank[j>>1] != r {
			return bad(RegionCodes, int64(8*c), "rank sample %d is %d, the codes give %d", j>>1, t.rank[j>>1], r)
		}
		r += uint32(bits.OnesCount64(unknownMask(w)))
	}
	if rw := len(t.rank); rw&1 != 0 && lf.ranks[2*(c+uint64(len(t.codes)))+uint64(rw)] != 0 {
		return bad(RegionCodes, int64(8*c), "rank padding not zero")
	}
	if err := checkShape(g, &t); err != nil {
		fe := err.(*FormatError)
		return bad(RegionCodes, int64(8*c), "code %d: %s", fe.Offset, fe.Msg)
	}
	if t.count(Outside) != int(n-nodes) {
		return bad(RegionIndex, 0, "%d nodes recorded, %d present", nodes, n-int64(t.count(Outside)))
	}
	if _, err := checkOutside(g, &t, nil); err != nil {
		fe := err.(*FormatError)
		return bad(RegionCodes, int64(8*c), "code %d: %s", fe.Offset, fe.Msg)
	}
	return nil
}

// AppendRecord appends t's stored record (NewStored) to dst: its code
// words, then its rank samples two to a word.
func AppendRecord(dst []uint64, t *Tree) []uint64 {
	dst = append(dst, t.codes...)
	for j := 0; j < len(t.rank); j += 2 {
		w := uint64(t.rank[j])
		if j+1 < len(t.rank) {
			w |= uint64(t.rank[j+1]) << 32
		}
		dst = append(dst, w)
	}
	return dst
}

// StoredBytes returns the bytes h's trees take as a store file holds them:
// a flat hierarchy's code words (and, read in place, rank samples), a coded
// one's blocks.
func (h *Hierarchy) StoredBytes() int64 {
	switch {
	case h.coded != nil:
		return int64(len(h.coded.Blocks))
	case h.stored != nil:
		return 8 * int64(len(h.stored.Words))
	}
	return 8 * int64(len(h.codes))
}
