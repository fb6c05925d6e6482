package quadpvs

import (
	"container/heap"
	"fmt"
)

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
	for c.over(limit, codes) && len(c.groups) > 0 {
		c.collapseLeast()
	}
}

// collapseLeast collapses the group of least loss; its parent becomes a
// group when all its children are leaves then. Once the root has collapsed
// no group is left.
func (c *Capper) collapseLeast() {
	u := int(heap.Pop(&c.groups).(group).node)
	c.drop(u)
	if u == 0 {
		c.groups = c.groups[:0]
		return
	}
	if p := int(c.parent[u]); c.leafGroup(p) {
		heap.Push(&c.groups, c.group(p))
	}
}

// leafGroup reports whether node p's four children are all leaves.
func (c *Capper) leafGroup(p int) bool {
	b := int(c.child[p])
	for k := range 4 {
		if c.st[b+k] == Unknown {
			return false
		}
	}
	return true
}

// LossSizes continues min-loss collapses on src, from src capped at ceiling
// codes (as CapCodes would; nodes when byNodes), and writes into sizes[j]
// the codes the tree keeps after the prefix of those collapses, least loss
// first, that the price λ = thresholds[j] makes, and into nodes[j] (when
// nodes is not nil) its nodes then. λ is in hidden cells, times weight, per
// byte as BytesFor counts the codes — or per node when byNodes, the
// thesis's accounting (§3.4, Table 4.5) —, and the prefix is the longest
// of k collapses maximising λ·(cost saved) − (hidden cells lost, times
// weight). A collapse inside a code word saves no byte until the word
// empties, and a costly collapse can make cheap ones possible (a parent
// whose children are now all leaves): the prefix chosen lies on the lower
// convex hull of the loss against the cost saved. thresholds must be
// non-decreasing and sizes (and nodes) as long; weight > 0. CapCodes(dst,
// src, int(sizes[j])) with MinLoss set then writes that tree, since a
// smaller cap continues the same collapses. This is the per-tree curve of
// a global allocation (compress.Allocate): one price for every tree of a
// store spends its bytes where they keep the most hidden cells. Errors: a
// ceiling below 1, thresholds out of order, sizes or nodes of another
// length.
func (c *Capper) LossSizes(sizes, nodes []int32, src *Tree, ceiling int, byNodes bool, weight float64, thresholds []float64) error {
	if ceiling < 1 || len(sizes) != len(thresholds) || nodes != nil && len(nodes) != len(thresholds) || !(weight > 0) {
		return fmt.Errorf("quadpvs: loss sizes with ceiling %d, weight %g, %d sizes and %d node counts for %d thresholds",
			ceiling, weight, len(sizes), len(nodes), len(thresholds))
	}
	for j := 1; j < len(thresholds); j++ {
		if thresholds[j] < thresholds[j-1] {
			return fmt.Errorf("quadpvs: thresholds %g then %g, want them non-decreasing", thresholds[j-1], thresholds[j])
		}
	}
	c.MinLoss = true
	c.prepare(src.flat(&c.flat, &c.cq))
	c.collapseMinLoss(ceiling, !byNodes)
	n0, nodes0 := c.ncodes, c.nodes
	cost := func() float64 {
		if byNodes {
			return float64(c.nodes)
		}
		return float64(BytesFor(c.ncodes))
	}
	c0 := cost()
	// The lower convex hull of (cost saved, loss) after k collapses, k =
	// 0, 1, … to the last: x never decreases with k; of points with the
	// same x the lowest (then the latest) stays; collinear points go.
	hull := append(c.hull[:0], hullPoint{nodes: int32(nodes0)})
	var loss float64
	for k := 1; len(c.groups) > 0; k++ {
		loss += float64(c.groups[0].loss) * weight
		c.collapseLeast()
		p := hullPoint{k: int32(k), nodes: int32(c.nodes), x: c0 - cost(), y: loss}
		if last := hull[len(hull)-1]; p.x == last.x {
			if p.y > last.y {
				continue
			}
			hull = hull[:len(hull)-1]
		}
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			if (b.y-a.y)*(p.x-b.x) < (p.y-b.y)*(b.x-a.x) {
				break
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	h := 0
	for j, th := range thresholds {
		for h+1 < len(hull) && hull[h+1].y-hull[h].y <= th*(hull[h+1].x-hull[h].x) {
			h++
		}
		sizes[j] = int32(n0 - 4*int(hull[h].k))
		if nodes != nil {
			nodes[j] = hull[h].nodes
		}
	}
	c.hull = hull
	c.src = nil
	return nil
}

// hullPoint is a prefix of k collapses, leaving nodes nodes: the cost it
// saves and the hidden cells (times the weight) it loses.
type hullPoint struct {
	k, nodes int32
	x, y     float64
}
