package quadpvs

import (
	"fmt"
	"math"
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

// group is a collapsible node with the hidden cells its collapse loses, as
// one key whose order is the collapses' order: the loss (32 bits: at most
// 4^15 cells), then 15 − depth (4 bits: deeper first), then 2^28 − 1 −
// node (28 bits: later first; a tree holds fewer than 2^28 codes).
type group uint64

func newGroup(loss int64, depth, node int) group {
	return group(uint64(loss)<<32 | uint64(15-depth)<<28 | uint64(1<<28-1-node))
}

func (g group) loss() int64 { return int64(g >> 32) }
func (g group) node() int   { return 1<<28 - 1 - int(g&(1<<28-1)) }

// groupHeap is a min-heap of groups (a binary heap of keys, its
// comparisons inlined, not container/heap's interface, whose boxing
// allocated on every push).
type groupHeap []group

// The heap is 4-ary: half the levels of a binary one, and a node's
// children share a cache line.

// init orders h as a heap.
func (h groupHeap) init() {
	if len(h) < 2 {
		return
	}
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

func (h groupHeap) down(i int) {
	n := len(h)
	g := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k] < h[m] {
				m = k
			}
		}
		if h[m] >= g {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = g
}

// push adds g.
func (h *groupHeap) push(g group) {
	*h = append(*h, g)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if g >= a[p] {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = g
}

// pop removes and returns the first group.
func (h *groupHeap) pop() group {
	a := *h
	g := a[0]
	last := len(a) - 1
	a[0] = a[last]
	*h = a[:last]
	if last > 0 {
		(*h).down(0)
	}
	return g
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
	c.groups.init()
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
	return newGroup(loss, c.pos[i].depth, i)
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
	u := c.groups.pop().node()
	if c.record {
		c.order = append(c.order, int32(u))
	}
	c.drop(u)
	if u == 0 {
		c.groups = c.groups[:0]
		return
	}
	if p := int(c.parent[u]); c.leafGroup(p) {
		c.groups.push(c.group(p))
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
// thesis's accounting (§3.4, Table 4.5), per code with c.CostCodes —, and
// the prefix is the longest
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
		switch {
		case byNodes:
			return float64(c.nodes)
		case c.CostCodes:
			return float64(c.ncodes)
		}
		return float64(BytesFor(c.ncodes))
	}
	c0 := cost()
	// The lower convex hull of (cost saved, loss) after k collapses, k =
	// 0, 1, … to the last: x never decreases with k; of points with the
	// same x the lowest (then the latest) stays; collinear points go.
	hull := append(c.hull[:0], hullPoint{nodes: int32(nodes0)})
	var loss float64
	// Counting in codes (a coded store's bake), collapses stop once the
	// least loss is worth 16 collapses' codes at the highest price: no
	// later prefix pays at any price given (it would need 16 later
	// collapses to lose nothing), bar chains of collapses that each free
	// their parent, which the bound lets go.
	stop := math.Inf(1)
	if c.CostCodes && !byNodes && len(thresholds) > 0 {
		stop = 64 * thresholds[len(thresholds)-1]
	}
	for k := 1; len(c.groups) > 0; k++ {
		if l := float64(c.groups[0].loss()) * weight; l > stop {
			break
		}
		loss += float64(c.groups[0].loss()) * weight
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

// CapAtPrices writes into dsts[j] src capped min-loss at price prices[j]
// (increasing), as LossSizes then CapCodes at its size would, and the
// sizes into sizes: one pass of collapses to the root, recorded, then the
// first ones replayed without the heap. Each dst must not be src. Errors
// are LossSizes's.
func (c *Capper) CapAtPrices(dsts []*Tree, sizes []int32, src *Tree, ceiling int, weight float64, prices []float64) error {
	if len(dsts) != len(prices) {
		return fmt.Errorf("quadpvs: %d trees for %d prices", len(dsts), len(prices))
	}
	c.record, c.order = true, c.order[:0]
	err := c.LossSizes(sizes, nil, src, ceiling, false, weight, prices)
	c.record = false
	if err != nil {
		return err
	}
	flat := src.flat(&c.flat, &c.cq)
	c.MinLoss = false
	c.prepare(flat)
	c.MinLoss = true
	done := 0
	for j, d := range dsts {
		for c.ncodes > int(sizes[j]) && done < len(c.order) {
			c.drop(int(c.order[done]))
			done++
		}
		c.emit(d)
	}
	c.src = nil
	return nil
}

// hullPoint is a prefix of k collapses, leaving nodes nodes: the cost it
// saves and the hidden cells (times the weight) it loses.
type hullPoint struct {
	k, nodes int32
	x, y     float64
}
