package quadtree

import (
	"fmt"
	"math/bits"
)

// Capper caps trees at a node count by the compression of §3.4: while the
// tree has more than N nodes, take a leaf of maximum depth, make its parent
// Visible and drop the parent's children; whenever that leaves all of a
// node's terrain children Visible, that node becomes Visible too, up the
// tree. Every step only turns hidden cells visible, so the result is
// conservative. Among leaves of equal depth the last in breadth-first order
// goes first, so a smaller cap continues the same sequence of collapses: the
// visible set only grows as N shrinks. Node budgets for a whole store are the
// compress package's; this is the per-tree operation. A Capper keeps scratch
// between calls and is not safe for concurrent use.
type Capper struct {
	// MinLoss collapses, at each step, the group that loses the fewest
	// hidden cells (minloss.go) instead of §3.4's deepest, last one. It
	// needs G, the trees' geometry, to count cells.
	MinLoss bool
	G       Geometry
	// CostCodes makes LossSizes count a tree's cost in codes rather than
	// in BytesFor's bytes (for entropy-coded trees, whose bytes follow
	// their codes, not their code words).
	CostCodes bool

	st     []Status // each code's status as the collapses go; dropped for a dropped node
	parent []int32
	child  []int32 // an Unknown code's first child
	q      []int32
	// state of the collapses on the current source (prepare, collapse)
	src           *Tree
	next          int // next code, from the end, the collapses look at
	nodes, ncodes int
	area          []int32    // min-loss: each node's cells on the terrain
	corner        []corner   // min-loss: each Unknown node's quad
	groups        groupQueue // min-loss: the collapsible groups
	flat          Tree       // a shared source, expanded
	cq            []cursor
	hull          []hullPoint // LossSizes: the lower convex hull of its collapses
	record        bool        // CapAtPrices: collapseLeast appends to order
	order         []int32     // the nodes collapsed, in order
	kids          []uint8     // with order: the collapsed node's children's codes, 2 bits each
}

// Cap writes into dst (reusing its memory; dst must not be src) src capped
// at maxNodes nodes (≥ 1), the thesis's count. A tree already within the cap
// is copied as is. Time is linear in src.Len().
func (c *Capper) Cap(dst, src *Tree, maxNodes int) error {
	return c.CapEach([]*Tree{dst}, src, []int{maxNodes}, false)
}

// CapCodes is Cap with the cap on codes (Len, Outside codes included), which
// is what a tree's bytes depend on (BytesFor): the cap for a byte budget.
func (c *Capper) CapCodes(dst, src *Tree, maxCodes int) error {
	return c.CapEach([]*Tree{dst}, src, []int{maxCodes}, true)
}

// CapEach writes into dsts[j] src capped at limits[j], on codes (Len) when
// codes is set, else on nodes, for limits in non-increasing order (each ≥ 1):
// the same trees as one Cap or CapCodes call per limit, in one pass, since a
// smaller cap continues the larger one's collapses. dsts must not include
// src. Time is linear in src.Len() plus the trees written.
func (c *Capper) CapEach(dsts []*Tree, src *Tree, limits []int, codes bool) error {
	if len(dsts) != len(limits) {
		return fmt.Errorf("quadpvs: %d trees for %d caps", len(dsts), len(limits))
	}
	for j, l := range limits {
		if l < 1 {
			return fmt.Errorf("quadpvs: cap of %d nodes, want at least 1", l)
		}
		if j > 0 && l > limits[j-1] {
			return fmt.Errorf("quadpvs: caps %d then %d, want them largest first", limits[j-1], l)
		}
	}
	c.prepare(src.flat(&c.flat, &c.cq))
	for j, l := range limits {
		c.collapse(l, codes)
		c.emit(dsts[j])
	}
	c.src = nil
	return nil
}

// dropped marks, in Capper.st, a node a collapse removed (not a code).
const dropped Status = 4

// prepare decodes src's codes, parents and children for collapse, a code
// word (32 codes) at a time.
func (c *Capper) prepare(src *Tree) {
	n := src.n
	if cap(c.st) < n {
		c.st = make([]Status, n)
		c.parent = make([]int32, n)
		c.child = make([]int32, n)
	}
	st, parent, child := c.st[:n], c.parent[:n], c.child[:n]
	b := int32(1) // the next Unknown code's first child
	for w, word := range src.codes {
		i0 := w * 32
		cs := st[i0:min(i0+32, n)]
		for j := range cs {
			cs[j] = Status(word >> (2 * uint(j)) & 3)
		}
		for u := unknownMask(word); u != 0; u &= u - 1 {
			i := int32(i0 + bits.TrailingZeros64(u)/2)
			child[i] = b
			parent[b], parent[b+1], parent[b+2], parent[b+3] = i, i, i, i
			b += 4
		}
	}
	c.src, c.next, c.nodes, c.ncodes = src, n-1, src.nodes, src.n
	if c.MinLoss {
		c.prepareMinLoss()
	}
}

// collapse continues the collapses until the tree is within limit.
func (c *Capper) collapse(limit int, codes bool) {
	if c.MinLoss {
		c.collapseMinLoss(limit, codes)
		return
	}
	st, parent, child := c.st[:c.src.n], c.parent[:c.src.n], c.child[:c.src.n]
	// Reverse breadth-first order visits deeper nodes first; an Unknown
	// node reached this way has only leaves below it (its Unknown children
	// were collapsed before it).
	codesW := c.src.codes
	for c.next >= 0 && c.over(limit, codes) {
		// The previous Unknown code of the source, a word at a time.
		i := -1
		for w, m := c.next>>5, unknownMask(codesW[c.next>>5])&(2<<(2*uint(c.next&31)+1)-1); ; {
			if m != 0 {
				i = w<<5 + (63-bits.LeadingZeros64(m))/2
				break
			}
			if w--; w < 0 {
				break
			}
			m = unknownMask(codesW[w])
		}
		if i < 0 {
			c.next = -1
			break
		}
		c.next = i - 1
		if st[i] != Unknown {
			continue // collapsed on the way up from a child
		}
		for u := i; ; {
			c.drop(u)
			if u == 0 {
				break
			}
			p := int(parent[u])
			pb := int(child[p])
			allVisible := true
			for k := range 4 {
				if s := st[pb+k]; s != Visible && s != Outside {
					allVisible = false
				}
			}
			if !allVisible {
				break
			}
			u = p
		}
	}
}

// over reports whether the tree is still above limit (codes, or nodes).
func (c *Capper) over(limit int, codes bool) bool {
	if codes {
		return c.ncodes > limit
	}
	return c.nodes > limit
}

// drop collapses node u, whose children are all leaves: they are dropped
// (4 codes, their nodes) and u becomes Visible.
func (c *Capper) drop(u int) {
	st := c.st
	b := int(c.child[u])
	c.ncodes -= 4
	for k := range 4 {
		if st[b+k] != Outside {
			c.nodes--
			st[b+k] = dropped
		}
	}
	st[u] = Visible
}

// emit writes the current state of the collapses into dst.
func (c *Capper) emit(dst *Tree) {
	st, child := c.st, c.child
	w := newWriter(dst)
	w.put(st[0])
	// The queue holds the Unknown nodes; each writes its four children.
	q := c.q[:0]
	if st[0] == Unknown {
		q = append(q, 0)
	}
	for h := 0; h < len(q); h++ {
		b := child[q[h]]
		s0, s1, s2, s3 := st[b], st[b+1], st[b+2], st[b+3]
		w.put4(uint(s0) | uint(s1)<<2 | uint(s2)<<4 | uint(s3)<<6)
		for k, s := range [4]Status{s0, s1, s2, s3} {
			if s == Unknown {
				q = append(q, b+int32(k))
			}
		}
	}
	c.q = q
	w.finish()
	if dst.nodes != c.nodes {
		panic(fmt.Sprintf("quadpvs: cap counted %d nodes, emitted %d", c.nodes, dst.nodes))
	}
}
