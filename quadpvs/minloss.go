package quadpvs

import "container/heap"

// Min-loss capping (thesis §5.2's suggestion; issue "more hidden cells per
// byte"): instead of the deepest, last leaf group, collapse the group that
// turns the fewest hidden cells visible. A group is an Unknown node whose
// four children are all leaves; collapsing it makes the node Visible and
// drops its children, removing 4 codes whatever the group, so choosing by
// hidden cells lost is choosing by loss per byte. Ties go to the deeper
// group, then to the later in breadth-first order, as in §3.4. A collapse
// can make its parent a group; groups of Visible children lose nothing and
// so go first, which is §3.4's rule of merging all-visible siblings. Every
// step turns only hidden cells visible: conservative, like §3.4. It is
// greedy: each step loses the least it can, which need not be the least
// over many steps.

// group is a collapsible node with the hidden cells its collapse loses.
type group struct {
	loss  int64
	depth int8
	node  int32
}

// groupHeap is a min-heap of groups: least loss, then deepest, then latest.
type groupHeap []group

func (h groupHeap) Len() int { return len(h) }
func (h groupHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.loss != b.loss {
		return a.loss < b.loss
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return a.node > b.node
}
func (h groupHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *groupHeap) Push(x any)   { *h = append(*h, x.(group)) }
func (h *groupHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// prepareMinLoss computes each node's quad and queues the initial groups.
func (c *Capper) prepareMinLoss() {
	src, st := c.src, c.st[:c.src.n]
	n := src.n
	if cap(c.pos) < n {
		c.pos = make([]quadPos, n)
	}
	pos := c.pos[:n]
	pos[0] = quadPos{}
	c.groups = c.groups[:0]
	for i := range st {
		if st[i] != Unknown {
			continue
		}
		b := int(c.child[i])
		leaves := true
		for k := range 4 {
			pos[b+k] = pos[i].child(k)
			if st[b+k] == Unknown {
				leaves = false
			}
		}
		if leaves {
			c.groups = append(c.groups, c.group(i))
		}
	}
	heap.Init(&c.groups)
}

// group returns node i as a group: the hidden cells of its children.
func (c *Capper) group(i int) group {
	b := int(c.child[i])
	var loss int64
	for k := range 4 {
		if c.st[b+k] == Hidden {
			loss += int64(c.G.cellsIn(c.pos[b+k]))
		}
	}
	return group{loss, int8(c.pos[i].depth), int32(i)}
}

// collapseMinLoss continues the min-loss collapses until the tree is
// within limit.
func (c *Capper) collapseMinLoss(limit int, codes bool) {
	st, parent := c.st[:c.src.n], c.parent[:c.src.n]
	for c.over(limit, codes) && len(c.groups) > 0 {
		u := int(heap.Pop(&c.groups).(group).node)
		c.drop(u)
		if u == 0 {
			break
		}
		p := int(parent[u])
		pb := int(c.child[p])
		leaves := true
		for k := range 4 {
			if st[pb+k] == Unknown {
				leaves = false
			}
		}
		if leaves {
			heap.Push(&c.groups, c.group(p))
		}
	}
}
