// Package quadtree implements package quadpvs: potentially visible sets
// (PVS) as Wilson predictive quadtrees (thesis §3.2), their lossless and
// lossy merges (§3.3), caps (§3.4), and the hierarchical PVS of a terrain's
// quad decomposition (§3.2, Figure 3.3). Package quadpvs names the types a
// program uses; this one adds what only the store (package compress) and
// the bake need: the stored forms of a hierarchy — the flat arrays (Flat),
// the records read in place (Stored, AppendRecord), the blocks coded given
// the parent quad's tree (Coded, CondCoder) — the checked rebuild of a
// tree from its codes (FromCodes, CheckCodes), and a bake's shards and
// checkpoints (Span, BuilderState).
//
// # Geometry
//
// A PVS covers a Width×Height terrain padded to the square of side 2^K
// (K = ceil(log2(max(Width, Height)))). The root (depth 0) is that square;
// a node at depth d is a quad of side 2^(K-d) cells. Its four children are
// ordered by Morton code: 0 north-west, 1 north-east, 2 south-west, 3
// south-east (child index = 2·(row bit) + column bit).
//
// # Node encoding
//
// Each node is a 2-bit code: Hidden, Visible, Unknown (the node has four
// children) or Outside (the quad lies wholly outside the terrain: it is not
// a node of the PVS, is never counted, and cannot change). Leaf codes say
// every terrain cell of the quad is hidden (or visible); cells of the padding
// are don't-cares, so a quad straddling the terrain's edge collapses as soon
// as its terrain cells agree.
//
// Codes are stored in breadth-first order, 32 per uint64 (code i in bits
// 2·(i mod 32) of word i/32), with the root at 0; every Unknown node has four
// child slots, so the children of the Unknown node of rank r (r Unknown nodes
// come before it) are at 4r+1 … 4r+4. A rank sample per 64 codes (uint32)
// makes that O(1). In memory a tree costs 2.5 bits per code; Bytes reports it.
package quadtree

import (
	"fmt"
	"math/bits"
)

// Status is a node's code.
type Status uint8

const (
	Hidden  Status = 0 // every terrain cell of the quad is hidden
	Visible Status = 1 // every terrain cell of the quad is visible
	Unknown Status = 2 // mixed: see the four children
	Outside Status = 3 // the quad lies outside the terrain (not a node)
)

func (s Status) String() string {
	switch s {
	case Hidden:
		return "hidden"
	case Visible:
		return "visible"
	case Unknown:
		return "unknown"
	}
	return "outside"
}

// Tree is one PVS as a predictive quadtree. The zero Tree is empty (no
// root) and only valid as a destination. A Tree is immutable once built and
// safe for concurrent readers.
type Tree struct {
	codes []uint64 // 2-bit codes, breadth-first
	rank  []uint32 // rank[j]: Unknown codes before code 64·j
	n     int      // number of codes, Outside ones included
	nodes int      // number of codes that are not Outside

	// A tree of a shared hierarchy (share.go) may hold references: Outside
	// codes at positions refs[j]>>refBits (increasing) that stand for
	// shared subtree refs[j]&(1<<refBits-1) of h. nodes then counts the
	// nodes the references stand for.
	refs    []uint32
	refBits uint8
	h       *Hierarchy
}

const (
	lowBits = 0x5555555555555555
)

// unknownMask returns a word with bit 2i+1 set where code i of w is Unknown
// (binary 10).
func unknownMask(w uint64) uint64 { return w &^ (w << 1) & (lowBits << 1) }

// Len returns the number of codes, Outside ones included.
func (t *Tree) Len() int { return t.n }

// Nodes returns the number of nodes (codes that are not Outside): the size
// the thesis's node budget N caps (§3.4).
func (t *Tree) Nodes() int { return t.nodes }

// Bytes returns the tree's size in memory: ⌈n/32⌉ code words of 8 bytes and
// ⌈n/64⌉ rank samples of 4 bytes, 0.3125 bytes per code.
func (t *Tree) Bytes() int { return 8*len(t.codes) + 4*len(t.rank) }

// BytesFor returns Bytes of a tree of n codes.
func BytesFor(n int) int { return 8*((n+31)/32) + 4*((n+63)/64) }

// code returns code i.
func (t *Tree) code(i int) Status { return Status(t.codes[i>>5] >> (uint(i&31) * 2) & 3) }

// codes4 returns codes i … i+3 in the low 8 bits (code i lowest); codes
// past the end read as 0.
func (t *Tree) codes4(i int) uint {
	b := uint(2 * i)
	w := b >> 6
	v := t.codes[w] >> (b & 63)
	if b&63 > 56 && int(w)+1 < len(t.codes) {
		v |= t.codes[w+1] << (64 - b&63)
	}
	return uint(v & 0xff)
}

// Root returns the root's status (Unknown when the root is a reference to
// a shared subtree).
func (t *Tree) Root() Status {
	if c := t.code(0); c != Outside || len(t.refs) == 0 || t.refs[0]>>t.refBits != 0 {
		return c
	}
	return Unknown
}

// rankAt returns the number of Unknown codes before position i (0 ≤ i ≤ n).
func (t *Tree) rankAt(i int) int {
	if i == t.n {
		i-- // count through the last code, then add it
		r := t.rankAt(i)
		if t.code(i) == Unknown {
			r++
		}
		return r
	}
	return rankIn(t.codes, t.rank, i)
}

// rankIn returns the number of Unknown codes before position i of the code
// words codes (32 two-bit codes a word) with their rank samples rank (one
// per 64 codes); i must lie below the last code.
func rankIn(codes []uint64, rank []uint32, i int) int {
	j := i >> 6
	r := int(rank[j])
	w := 2 * j
	if i&32 != 0 {
		r += bits.OnesCount64(unknownMask(codes[w]))
		w++
	}
	return r + bits.OnesCount64(unknownMask(codes[w])&(1<<(uint(i&31)*2)-1))
}

// checkShape is the cheap structural check of a tree of geometry g, enough
// for every query and walk to stay in bounds: the codes form whole levels
// (each level holds four codes per Unknown code of the level above), no
// Unknown code at cell level, nothing after the last level, no bits after
// the last code. It costs O(K) per tree once the rank samples exist. It does
// not check that Outside codes stand where g puts the terrain's edge
// (FromCodes does). Errors are *FormatError.
func checkShape(g Geometry, t *Tree) error {
	if t.n <= 0 || len(t.codes) != (t.n+31)/32 || len(t.rank) != (t.n+63)/64 {
		return &FormatError{0, fmt.Sprintf("%d codes in %d words and %d rank samples", t.n, len(t.codes), len(t.rank))}
	}
	if t.n&31 != 0 && t.codes[len(t.codes)-1]>>(uint(t.n&31)*2) != 0 {
		return &FormatError{t.n, "bits set after the last code"}
	}
	start, size := 0, 1
	for d := 0; ; d++ {
		end := start + size
		if end > t.n {
			return &FormatError{t.n, fmt.Sprintf("level %d needs %d codes, tree ends at %d", d, end, t.n)}
		}
		u := t.rankAt(end) - t.rankAt(start)
		if u == 0 {
			if end != t.n {
				return &FormatError{end, "codes after the last level"}
			}
			return nil
		}
		if d == g.K {
			return &FormatError{start, "unknown code at cell level"}
		}
		start, size = end, 4*u
	}
}

// childBase returns the position of the first child of the Unknown code at i.
func (t *Tree) childBase(i int) int { return 4*t.rankAt(i) + 1 }

// writer appends codes to a tree under construction, reusing its memory.
type writer struct {
	t   *Tree
	cur uint64
}

func newWriter(dst *Tree) writer {
	dst.codes, dst.rank, dst.n, dst.nodes = dst.codes[:0], dst.rank[:0], 0, 0
	dst.refs, dst.h = nil, nil
	return writer{t: dst}
}

func (w *writer) put(s Status) {
	t := w.t
	w.cur |= uint64(s) << (uint(t.n&31) * 2)
	t.n++
	if s != Outside {
		t.nodes++
	}
	if t.n&31 == 0 {
		t.codes = append(t.codes, w.cur)
		w.cur = 0
	}
}

// put4 appends four codes, the first in c's low bits.
func (w *writer) put4(c uint) {
	t := w.t
	sh := uint(t.n&31) * 2
	w.cur |= uint64(c) << sh
	t.nodes += 4 - bits.OnesCount(c&(c>>1)&0x55)
	t.n += 4
	if sh >= 56 { // the word is full
		t.codes = append(t.codes, w.cur)
		w.cur = 0
		if sh > 56 {
			w.cur = uint64(c) >> (64 - sh)
		}
	}
}

// finish flushes the last word and builds the rank samples.
func (w *writer) finish() {
	t := w.t
	if t.n&31 != 0 {
		t.codes = append(t.codes, w.cur)
	}
	t.buildRank()
}

func (t *Tree) buildRank() {
	t.rank = t.rank[:0]
	r := uint32(0)
	for j, c := range t.codes {
		if j&1 == 0 {
			t.rank = append(t.rank, r)
		}
		r += uint32(bits.OnesCount64(unknownMask(c)))
	}
}

// Clone returns a deep copy of t without references (see CopyTo).
func (t *Tree) Clone() Tree {
	var c Tree
	t.CopyTo(&c)
	return c
}

// Codes returns the tree's code words (read-only; ⌈Len/32⌉ words, the bits
// after the last code zero), for serialising. In a tree with references
// (Shared) a reference is an Outside code.
func (t *Tree) Codes() []uint64 { return t.codes }

// FormatError reports a malformed encoded tree.
type FormatError struct {
	// Offset is the code position where the problem was found; for the
	// blocks of CondCoder, the byte of the block.
	Offset int
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("quadpvs: malformed tree at code %d: %s", e.Offset, e.Msg)
}

// FromCodes rebuilds a tree of n codes from its code words (as Codes returns
// them) for a terrain of geometry g, and checks it: every Unknown node has
// its four child slots, nothing follows the last, Outside codes stand
// exactly where g puts quads outside the terrain, leaves are not below cell
// level, and unused bits are zero. It reuses dst's memory. Errors are
// *FormatError.
func FromCodes(g Geometry, codes []uint64, n int, dst *Tree) error {
	if n <= 0 || len(codes) != (n+31)/32 {
		return &FormatError{0, fmt.Sprintf("%d codes in %d words", n, len(codes))}
	}
	if n&31 != 0 && codes[len(codes)-1]>>(uint(n&31)*2) != 0 {
		return &FormatError{n, "bits set after the last code"}
	}
	dst.codes = append(dst.codes[:0], codes...)
	dst.n = n
	dst.buildRank()
	// Walk breadth-first with each node's quad to check the shape.
	var q []quadPos
	q = append(q, quadPos{})
	nodes := 0
	for i := 0; i < n; i++ {
		if i >= len(q) {
			return &FormatError{i, "code without a parent"}
		}
		p := q[i]
		c := dst.code(i)
		if out := g.outside(p); out != (c == Outside) {
			return &FormatError{i, fmt.Sprintf("%s code for a quad %s the terrain", c, map[bool]string{true: "outside", false: "inside"}[out])}
		}
		if c != Outside {
			nodes++
		}
		if c == Unknown {
			if p.depth == g.K {
				return &FormatError{i, "unknown cell"}
			}
			for k := range 4 {
				q = append(q, p.child(k))
			}
		}
	}
	if len(q) != n {
		return &FormatError{n, fmt.Sprintf("tree needs %d codes, has %d", len(q), n)}
	}
	dst.nodes = nodes
	return nil
}

// CheckCodes makes dst a view of n codes in code words (no copy: dst
// aliases codes; its rank samples reuse dst's memory) and checks them as a
// store's reader does: checkShape, and nodes equal to the codes that are
// not Outside. It costs one pass over the words, against FromCodes's walk
// of every code, and like checkShape it does not check where Outside codes
// stand. Errors are *FormatError.
func CheckCodes(g Geometry, codes []uint64, n, nodes int, dst *Tree) error {
	if n <= 0 || len(codes) != (n+31)/32 {
		return &FormatError{0, fmt.Sprintf("%d codes in %d words", n, len(codes))}
	}
	dst.codes, dst.n = codes, n
	dst.buildRank()
	if err := checkShape(g, dst); err != nil {
		return err
	}
	outside := 0
	for _, w := range codes {
		outside += bits.OnesCount64(w & (w >> 1) & lowBits) // code 11; bits past n are zero (checkShape)
	}
	if n-outside != nodes {
		return &FormatError{0, fmt.Sprintf("%d nodes recorded, %d present", nodes, n-outside)}
	}
	dst.nodes = nodes
	return nil
}

// count returns the number of codes equal to s.
func (t *Tree) count(s Status) int {
	n := 0
	x := uint64(s) * lowBits // s repeated in every code
	for i, w := range t.codes {
		eq := ^(w ^ x) // code bits equal to s's
		m := eq & (eq >> 1) & lowBits
		if i == len(t.codes)-1 && t.n&31 != 0 {
			m &= 1<<(uint(t.n&31)*2) - 1
		}
		n += bits.OnesCount64(m)
	}
	return n
}

// CopyTo makes dst a copy of t, reusing dst's memory. The copy has no
// references: a tree of a shared hierarchy is expanded (expand), so that
// dst can be merged into and kept apart from the hierarchy.
func (t *Tree) CopyTo(dst *Tree) {
	if t.Shared() {
		t.expand(dst, nil)
		return
	}
	dst.refs, dst.h = nil, nil
	dst.codes = append(dst.codes[:0], t.codes...)
	dst.rank = append(dst.rank[:0], t.rank...)
	dst.n, dst.nodes = t.n, t.nodes
}
