package quadpvs

import "fmt"

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
	st     []Status
	parent []int32
	q      []int32
}

// Cap writes into dst (reusing its memory; dst must not be src) src capped
// at maxNodes nodes (≥ 1), the thesis's count. A tree already within the cap
// is copied as is. Time is linear in src.Len().
func (c *Capper) Cap(dst, src *Tree, maxNodes int) error {
	return c.cap(dst, src, maxNodes, false)
}

// CapCodes is Cap with the cap on codes (Len, Outside codes included), which
// is what a tree's bytes depend on (BytesFor): the cap for a byte budget.
func (c *Capper) CapCodes(dst, src *Tree, maxCodes int) error {
	return c.cap(dst, src, maxCodes, true)
}

func (c *Capper) cap(dst, src *Tree, limit int, codes bool) error {
	if limit < 1 {
		return fmt.Errorf("quadpvs: cap of %d nodes, want at least 1", limit)
	}
	n := src.n
	if cap(c.st) < n {
		c.st = make([]Status, n)
		c.parent = make([]int32, n)
	}
	st, parent := c.st[:n], c.parent[:n]
	r := 0
	for i := range st {
		st[i] = src.code(i)
		if st[i] == Unknown {
			b := 4*r + 1
			r++
			for k := range 4 {
				parent[b+k] = int32(i)
			}
		}
	}
	nodes, ncodes := src.nodes, src.n
	over := func() bool {
		if codes {
			return ncodes > limit
		}
		return nodes > limit
	}
	// Reverse breadth-first order visits deeper nodes first; an Unknown
	// node reached this way has only leaves below it (its Unknown children
	// were collapsed before it).
	for i := n - 1; i >= 0 && over(); i-- {
		if st[i] != Unknown {
			continue
		}
		for u := i; ; {
			b := src.childBase(u)
			ncodes -= 4
			for k := range 4 {
				if st[b+k] != Outside {
					nodes--
					st[b+k] = Outside // dropped: no longer emitted
				}
			}
			st[u] = Visible
			if u == 0 {
				break
			}
			p := int(parent[u])
			pb := src.childBase(p)
			allVisible := true
			for k := range 4 {
				if s := st[pb+k]; s != Visible && !(s == Outside && src.code(pb+k) == Outside) {
					allVisible = false
				}
			}
			if !allVisible {
				break
			}
			u = p
		}
	}
	w := newWriter(dst)
	q := append(c.q[:0], 0)
	for h := 0; h < len(q); h++ {
		i := q[h]
		w.put(st[i])
		if st[i] == Unknown {
			b := int32(src.childBase(int(i)))
			q = append(q, b, b+1, b+2, b+3)
		}
	}
	c.q = q
	w.finish()
	if dst.nodes != nodes {
		panic(fmt.Sprintf("quadpvs: cap counted %d nodes, emitted %d", nodes, dst.nodes))
	}
	return nil
}
