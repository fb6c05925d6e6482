package quadtree

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Shared subtrees (the "quadtree sharing" of the thesis's future work,
// §5.2). Neighbouring points see much the same walls and ridges, so the
// PVSs of a hierarchy repeat whole subtrees. A shared hierarchy stores each
// repeated subtree once, as a tree of its own after the quads' trees, and
// every occurrence as a reference:
//
//   - a reference is an Outside code (3) in the referring tree's code
//     words at a position listed in the tree's references; it stands for an
//     Unknown node whose children are those of the shared subtree's root.
//     Since it is not an Unknown code, it has no child slots in the
//     referring tree, and the rank arithmetic of Tree is unchanged;
//   - shared subtree e is tree index Quads()+e of the hierarchy: codes
//     breadth-first from its root, which is Unknown, and references of its
//     own, only to shared subtrees of smaller index (so there are no
//     cycles);
//   - a tree's node count (NodeCount, Tree.Nodes) counts the nodes its
//     references stand for: it is that of the tree without sharing.
//
// Layout, in Hierarchy: Shared subtrees; trees 0 … Quads()+Shared-1 in
// CodeStart, RankStart, Len and NodeCount; tree i's references at
// Refs[RefStart[i]:RefStart[i+1]], each a uint32 holding the reference's
// code position (increasing) above its shared subtree's index (0-based) in
// the low RefBits bits. Share sets RefBits to 32 - bits.Len(longest tree's
// codes - 1), and keeps at most 2^RefBits shared subtrees, those that save
// the most. A hierarchy without references has RefStart nil.

// refBytes is the memory one reference takes in a shared hierarchy: its
// code position and shared subtree packed in a uint32.
const refBytes = 4

// sharedTreeBytes is the memory a shared subtree takes besides its codes
// and rank samples: the 24 bytes of every tree (two starts, two counts)
// and its 4-byte reference start.
const sharedTreeBytes = 28

// Shared reports whether t holds references to shared subtrees.
func (t *Tree) Shared() bool { return len(t.refs) > 0 }

// refAt returns the shared subtree the code at position i stands for, and
// whether it is a reference.
func (t *Tree) refAt(i int) (int, bool) {
	r, b := t.refs, t.refBits
	lo, hi := 0, len(r)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(r[m]>>b) < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(r) && int(r[lo]>>b) == i {
		return int(r[lo] & (1<<b - 1)), true
	}
	return 0, false
}

// subtree returns shared subtree e as a view into h's arrays.
func (h *Hierarchy) subtree(e int) Tree { return h.PVS(h.Quads() + e) }

// view resolves the trees a walk through a shared tree meets: id -1 is
// the tree itself, id e ≥ 0 shared subtree e; the last subtree met is
// cached.
type view struct {
	t   *Tree
	id  int32
	cur Tree
}

func newView(t *Tree) view { return view{t: t, id: -1} }

func (v *view) at(id int32) *Tree {
	if id < 0 {
		return v.t
	}
	if id != v.id {
		v.cur, v.id = v.t.h.subtree(int(id)), id
	}
	return &v.cur
}

// follow resolves the code s at position pos of the tree id: a reference
// becomes Unknown at the root (position 0) of its shared subtree.
func (v *view) follow(id int32, pos int, s Status) (int32, int, Status) {
	if s != Outside {
		return id, pos, s
	}
	t := v.at(id)
	if len(t.refs) == 0 {
		return id, pos, s
	}
	if e, ok := t.refAt(pos); ok {
		return int32(e), 0, Unknown
	}
	return id, pos, s
}

// cursor is a node of a walk through a shared tree: its tree (as view's
// id) and code position.
type cursor struct{ id, pos int32 }

// expand writes into dst (reusing its memory; dst must not be t) t with
// every reference replaced by the subtree it stands for: the tree without
// sharing. q is scratch (may be nil); the grown queue is returned for
// reuse. Time is linear in the expanded tree's codes.
func (t *Tree) expand(dst *Tree, q []cursor) []cursor {
	w := newWriter(dst)
	v := newView(t)
	q = append(q[:0], cursor{-1, 0})
	for h := 0; h < len(q); h++ {
		c := q[h]
		id, pos, s := v.follow(c.id, int(c.pos), v.at(c.id).code(int(c.pos)))
		w.put(s)
		if s == Unknown {
			b := int32(v.at(id).childBase(pos))
			q = append(q, cursor{id, b}, cursor{id, b + 1}, cursor{id, b + 2}, cursor{id, b + 3})
		}
	}
	w.finish()
	return q
}

// flat returns t when it has no references, else t expanded into scratch.
func (t *Tree) flat(scratch *Tree, q *[]cursor) *Tree {
	if !t.Shared() {
		return t
	}
	*q = t.expand(scratch, *q)
	return scratch
}

// ShareOptions tunes Share.
type ShareOptions struct {
	// MinCodes is the smallest subtree, in codes, considered for sharing
	// (at least 5: an Unknown node and its four children). Smaller
	// subtrees are never profitable at refBytes a reference; the default
	// (0) is 24.
	MinCodes int
}

// ShareStats says what Share did.
type ShareStats struct {
	Subtrees   int   // shared subtrees stored
	Refs       int   // references to them
	CodesFlat  int64 // codes of all trees before sharing
	CodesKept  int64 // codes of all trees after, shared subtrees included
	BytesFlat  int64 // Bytes before
	BytesShare int64 // Bytes after
}

// Share returns h with repeated subtrees stored once (the layout above),
// and what it saved. h must have no references; it is not modified, and
// the result shares no memory with it. Every tree of the result expands
// (expand) to h's tree of the same quad.
//
// A subtree is shared when the memory it saves is positive: with s its
// codes and n its occurrences, not counting those inside another shared
// subtree, n·s/3.2 bytes inline against BytesFor(s) + sharedTreeBytes +
// n·refBytes shared. Occurrences are found first come, top-down, tree by
// tree in index order, by a 64-bit hash of shape and statuses confirmed by
// comparing the codes, so a hash collision costs a missed share, never a
// wrong one. Memory: a map entry for every distinct subtree of at least
// MinCodes codes, plus 12 bytes per code of the largest tree.
func (h *Hierarchy) Share(opt ShareOptions) (*Hierarchy, ShareStats, error) {
	if h.refStart != nil {
		return nil, ShareStats{}, fmt.Errorf("quadpvs: hierarchy is already shared")
	}
	minCodes := opt.MinCodes
	if minCodes == 0 {
		minCodes = 24
	}
	if minCodes < 5 {
		return nil, ShareStats{}, fmt.Errorf("quadpvs: shared subtrees of at least %d codes, want at least 5", minCodes)
	}
	s := sharer{h: h, min: uint32(minCodes), index: map[uint64]int32{}}
	// Pass 1: count occurrences, first come.
	for q := range h.Quads() {
		s.load(q)
		s.mark(func(i int) bool {
			e, found := s.lookup(i)
			if found {
				s.count[e]++
				return false
			}
			if e < 0 {
				s.index[s.hash[i]] = int32(len(s.count))
				s.rep = append(s.rep, [2]uint32{uint32(q), uint32(i)})
				s.size = append(s.size, s.sz[i])
				s.count = append(s.count, 1)
			}
			return true
		})
	}
	// Keep the profitable subtrees, numbered by size (a shared subtree's
	// own shared subtrees are smaller, so they come first).
	maxLen := uint32(1)
	for _, n := range h.lens {
		maxLen = max(maxLen, n)
	}
	refBits := 32 - bits.Len32(maxLen-1)
	if refBits < 1 {
		return nil, ShareStats{}, fmt.Errorf("quadpvs: trees of %d codes leave no bits of a reference for its subtree", maxLen)
	}
	saves := func(e int32) int64 {
		n, sz := int64(s.count[e]), int64(s.size[e])
		return n*sz*5/16 - int64(BytesFor(int(sz))) - sharedTreeBytes - n*refBytes
	}
	var keep []int32
	for e, n := range s.count {
		if n >= 2 && saves(int32(e)) > 0 {
			keep = append(keep, int32(e))
		}
	}
	if len(keep) > 1<<refBits {
		slices.SortStableFunc(keep, func(a, b int32) int { return cmp.Compare(saves(b), saves(a)) })
		keep = keep[:1<<refBits]
	}
	slices.SortStableFunc(keep, func(a, b int32) int { return int(s.size[a]) - int(s.size[b]) })
	s.id = make([]int32, len(s.count))
	for e := range s.id {
		s.id[e] = -1
	}
	for id, e := range keep {
		s.id[e] = int32(id)
	}
	byRep := make(map[uint32][]int32) // quad → kept subtrees represented in it
	for _, e := range keep {
		byRep[s.rep[e][0]] = append(byRep[s.rep[e][0]], e)
	}
	// Pass 2: write the quads' trees, and each shared subtree from the
	// tree that holds its first occurrence.
	out := NewHierarchy(h.G)
	nq, ns := h.Quads(), len(keep)
	trees := nq + ns
	out.codeStart = make([]uint64, trees)
	out.rankStart = make([]uint64, trees)
	out.lens = make([]uint32, trees)
	out.nodeCount = make([]uint32, trees)
	out.shared = ns
	refs := make([][]uint32, trees)
	s.refBits = uint8(refBits)
	var pool []uint64
	var tr Tree
	st := ShareStats{Subtrees: ns, BytesFlat: int64(h.Bytes())}
	for q := range nq {
		s.load(q)
		st.CodesFlat += int64(s.t.n)
		s.encode(0, true, &tr)
		out.codeStart[q] = uint64(len(out.codes))
		out.codes = append(out.codes, tr.codes...)
		out.lens[q], out.nodeCount[q] = uint32(tr.n), h.nodeCount[q]
		refs[q] = slices.Clone(tr.refs)
		for _, e := range byRep[uint32(q)] {
			s.encode(int(s.rep[e][1]), false, &tr)
			id := s.id[e]
			out.codeStart[nq+int(id)] = uint64(len(pool))
			pool = append(pool, tr.codes...)
			out.lens[nq+int(id)], out.nodeCount[nq+int(id)] = uint32(tr.n), uint32(s.nodes(int(s.rep[e][1])))
			refs[nq+int(id)] = slices.Clone(tr.refs)
		}
	}
	base := uint64(len(out.codes))
	for i := nq; i < trees; i++ {
		out.codeStart[i] += base
	}
	out.codes = append(out.codes, pool...)
	out.refStart, out.refBits = make([]uint32, trees+1), refBits
	for i := range trees {
		out.refs = append(out.refs, refs[i]...)
		out.refStart[i+1] = uint32(len(out.refs))
	}
	if err := out.BuildRanks(); err != nil {
		return nil, st, fmt.Errorf("quadpvs: shared hierarchy fails its own check: %w", err)
	}
	st.Refs = len(out.refs)
	for _, n := range out.lens {
		st.CodesKept += int64(n)
	}
	st.BytesShare = int64(out.Bytes())
	return out, st, nil
}

// sharer holds Share's state: the subtrees met (first occurrence rep,
// size, occurrences, index in the result) and the current flat tree's
// per-node sizes and hashes.
type sharer struct {
	h       *Hierarchy
	min     uint32
	index   map[uint64]int32 // hash → subtree met
	rep     [][2]uint32      // quad, code position of the first occurrence
	size    []uint32
	count   []int32
	id      []int32 // shared subtree index, or -1
	refBits uint8

	q    int
	t    Tree
	sz   []uint32 // codes in the subtree under each code of t
	hash []uint64
	live []bool
	cq   []int32 // scratch
	eq   [][2]int32
	cmp  Tree
}

// load makes tree q current and computes its subtrees' sizes and hashes,
// bottom-up.
func (s *sharer) load(q int) {
	s.q, s.t = q, s.h.PVS(q)
	t := &s.t
	n := t.n
	if cap(s.sz) < n {
		s.sz, s.hash, s.live = make([]uint32, n), make([]uint64, n), make([]bool, n)
	}
	sz, hs := s.sz[:n], s.hash[:n]
	r := t.rankAt(n)
	for i := n - 1; i >= 0; i-- {
		c := t.code(i)
		if c != Unknown {
			sz[i], hs[i] = 1, leafHash[c]
			continue
		}
		r--
		b := 4*r + 1
		sz[i] = 1 + sz[b] + sz[b+1] + sz[b+2] + sz[b+3]
		x := hs[b]
		x = x*0x9e3779b97f4a7c15 + hs[b+1]
		x = x*0x9e3779b97f4a7c15 + hs[b+2]
		x = x*0x9e3779b97f4a7c15 + hs[b+3]
		hs[i] = mix64(x ^ uint64(sz[i])<<40)
	}
}

var leafHash = [4]uint64{mix64(1), mix64(2), 0, mix64(4)}

// mix64 is a 64-bit finaliser (SplitMix64's).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// lookup returns the subtree met before that equals the one at code i of
// the current tree (found), or -1 when none has its hash, or the index of
// a different subtree with the same hash (not found).
func (s *sharer) lookup(i int) (int32, bool) {
	q := s.q
	e, ok := s.index[s.hash[i]]
	if !ok {
		return -1, false
	}
	if s.rep[e] == [2]uint32{uint32(q), uint32(i)} {
		return e, true
	}
	if s.size[e] != s.sz[i] || !s.equal(int(s.rep[e][0]), int(s.rep[e][1]), i) {
		return e, false
	}
	return e, true
}

// equal compares the subtree at code j of tree q with the one at code i
// of the current tree.
func (s *sharer) equal(q, j, i int) bool {
	s.cmp = s.h.PVS(q)
	a, b := &s.cmp, &s.t
	st := append(s.eq[:0], [2]int32{int32(j), int32(i)})
	defer func() { s.eq = st }()
	for len(st) > 0 {
		p := st[len(st)-1]
		st = st[:len(st)-1]
		ca := a.code(int(p[0]))
		if ca != b.code(int(p[1])) {
			return false
		}
		if ca == Unknown {
			x, y := int32(a.childBase(int(p[0]))), int32(b.childBase(int(p[1])))
			st = append(st, [2]int32{x, y}, [2]int32{x + 1, y + 1}, [2]int32{x + 2, y + 2}, [2]int32{x + 3, y + 3})
		}
	}
	return true
}

// mark walks the current tree top-down (breadth-first); visit is called
// for every Unknown node of at least min codes reached, and its children
// are reached when it returns true. Smaller subtrees are not descended
// into.
func (s *sharer) mark(visit func(i int) bool) {
	t := &s.t
	live := s.live[:t.n]
	clear(live)
	live[0] = true
	for i := range t.n {
		if !live[i] || s.sz[i] < s.min || t.code(i) != Unknown {
			continue
		}
		if visit(i) {
			b := t.childBase(i)
			live[b], live[b+1], live[b+2], live[b+3] = true, true, true, true
		}
	}
}

// encode writes into dst the subtree of the current tree at code root
// (the whole tree for 0), breadth-first, with every kept shared subtree
// as a reference; the root itself may be one when top is set.
func (s *sharer) encode(root int, top bool, dst *Tree) {
	t := &s.t
	w := newWriter(dst)
	var refs []uint32
	q := append(s.cq[:0], int32(root))
	for h := 0; h < len(q); h++ {
		i := int(q[h])
		c := t.code(i)
		if c == Unknown && s.sz[i] >= s.min && (top || i != root) {
			if e, found := s.lookup(i); found && s.id[e] >= 0 {
				refs = append(refs, uint32(dst.n)<<s.refBits|uint32(s.id[e]))
				w.put(Outside)
				continue
			}
		}
		w.put(c)
		if c == Unknown {
			b := int32(t.childBase(i))
			q = append(q, b, b+1, b+2, b+3)
		}
	}
	s.cq = q
	w.finish()
	dst.refs, dst.refBits = refs, s.refBits
}

// nodes returns the nodes of the current tree's subtree at code i.
func (s *sharer) nodes(i int) int {
	t := &s.t
	n := 0
	q := append(s.cq[:0], int32(i))
	for h := 0; h < len(q); h++ {
		c := t.code(int(q[h]))
		if c != Outside {
			n++
		}
		if c == Unknown {
			b := int32(t.childBase(int(q[h])))
			q = append(q, b, b+1, b+2, b+3)
		}
	}
	s.cq = q
	return n
}

// checkRefs checks a shared hierarchy's references, once every tree's
// shape is checked: each tree's references in increasing order, on
// Outside codes; shared subtrees with an Unknown root, referring only to
// smaller indices; no tree reaching below cell level through its
// references (a reference at depth d to a subtree of height e needs
// d+e ≤ K); node counts equal to those the references stand for. Errors
// are *FormatError naming the tree.
func (h *Hierarchy) checkRefs() error {
	nq, ns := h.Quads(), h.shared
	trees := nq + ns
	if len(h.refStart) != trees+1 || h.refStart[0] != 0 || int(h.refStart[trees]) != len(h.refs) {
		return &FormatError{0, fmt.Sprintf("reference index of %d entries for %d trees and %d references", len(h.refStart), trees, len(h.refs))}
	}
	if h.refBits < 1 || h.refBits > 31 || ns > 1<<h.refBits {
		return &FormatError{0, fmt.Sprintf("%d bits of a reference for %d shared subtrees", h.refBits, ns)}
	}
	for i := range trees {
		if h.refStart[i] > h.refStart[i+1] {
			return &FormatError{0, fmt.Sprintf("tree %d: reference start %d after the next tree's %d", i, h.refStart[i], h.refStart[i+1])}
		}
	}
	b := uint(h.refBits)
	height := make([]int, ns)
	var lv []int // scratch: each level's first code
	check := func(i int) error {
		lo, hi := h.refStart[i], h.refStart[i+1]
		t := h.PVS(i)
		name := fmt.Sprintf("quad %d", i)
		if i >= nq {
			name = fmt.Sprintf("shared subtree %d", i-nq)
			if t.code(0) != Unknown {
				return &FormatError{0, name + ": root is not unknown"}
			}
		}
		// Level boundaries, as checkShape walks them.
		lv = append(lv[:0], 0)
		for start, size := 0, 1; start < t.n && size > 0; {
			end := start + size
			lv = append(lv, end)
			start, size = end, 4*(t.rankAt(end)-t.rankAt(start))
		}
		ht := len(lv) - 2 // depth of the last level
		nodes := uint64(t.n) - uint64(t.count(Outside))
		for j := lo; j < hi; j++ {
			p, e := h.refs[j]>>b, h.refs[j]&(1<<b-1)
			if j > lo && p <= h.refs[j-1]>>b {
				return &FormatError{int(p), name + ": references out of order"}
			}
			if int(p) >= t.n {
				return &FormatError{int(p), fmt.Sprintf("%s: reference past the tree's %d codes", name, t.n)}
			}
			if t.code(int(p)) != Outside {
				return &FormatError{int(p), name + ": reference on a code that is not outside"}
			}
			if int(e) >= ns || (i >= nq && int(e) >= i-nq) {
				return &FormatError{int(p), fmt.Sprintf("%s: reference to shared subtree %d of %d", name, e, ns)}
			}
			d, _ := slices.BinarySearch(lv, int(p)+1)
			ht = max(ht, d-1+height[e])
			nodes += uint64(h.nodeCount[nq+int(e)])
		}
		if ht > h.G.K {
			return &FormatError{0, fmt.Sprintf("%s: reaches %d levels below its root, more than the %d above the cells", name, ht, h.G.K)}
		}
		if nodes != uint64(h.nodeCount[i]) {
			return &FormatError{0, fmt.Sprintf("%s: %d nodes recorded, %d present", name, h.nodeCount[i], nodes)}
		}
		if i >= nq {
			height[i-nq] = ht
		}
		return nil
	}
	for i := nq; i < trees; i++ {
		if err := check(i); err != nil {
			return err
		}
	}
	for i := range nq {
		if err := check(i); err != nil {
			return err
		}
	}
	return nil
}

// StoredNodes returns the nodes h stores: every tree's codes that are not
// Outside, shared subtrees included, each reference counted as one node.
// Without sharing it is the sum of the trees' node counts.
func (h *Hierarchy) StoredNodes() int64 {
	n := int64(len(h.refs))
	for q := range h.lens {
		t := h.PVS(q)
		n += int64(t.n - t.count(Outside))
	}
	return n
}
