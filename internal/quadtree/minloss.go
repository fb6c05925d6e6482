package quadtree

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
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

// groupQueue holds the collapsible groups in the collapses' order: the
// groups of the source tree sorted once (about half the groups a capping
// collapses, read in order without a heap's sifting), and the groups that
// collapses make (a parent whose children became leaves) in a heap, but
// for one that comes before every other (two in five of them, on real
// PVSs: a parent whose collapse loses less than any group left), held
// aside. min and pop take the least of the heads; keys are unique (they
// hold the node), so the order is the one a single heap gives.
type groupQueue struct {
	sorted   []group // the initial groups, ascending from next
	next     int
	made     groupHeap
	first    group // when hasFirst, before every other group queued
	hasFirst bool
	tmp      []group // start's scratch
}

// reset empties q for a new source, whose groups are then appended to
// sorted, in breadth-first order, and ordered by start.
func (q *groupQueue) reset() {
	q.sorted, q.next, q.made, q.hasFirst = q.sorted[:0], 0, q.made[:0], false
}

// push adds a group made by a collapse.
func (q *groupQueue) push(g group) {
	switch {
	case q.hasFirst && g < q.first:
		q.made.push(q.first)
		q.first = g
	case q.hasFirst:
		q.made.push(g)
	case q.len() == 0 || g < q.min():
		q.first, q.hasFirst = g, true
	default:
		q.made.push(g)
	}
}

// smallLoss bounds the losses start sorts by counting: most groups lie
// deep, a few cells each.
const smallLoss = 256

// start orders the groups added since reset, which came in breadth-first
// order: reversed, they ascend in depth's and node's bits of the key, so a
// stable sort by loss orders them whole — by counting for losses below
// smallLoss, the rest (all larger) sorted after them.
func (q *groupQueue) start() {
	s := q.sorted
	slices.Reverse(s)
	var count [smallLoss + 2]int32
	for _, g := range s {
		count[min(g.loss(), smallLoss)+1]++
	}
	for l := 1; l < len(count); l++ {
		count[l] += count[l-1]
	}
	if cap(q.tmp) < len(s) {
		q.tmp = make([]group, len(s), 2*len(s))
	}
	t := q.tmp[:len(s)]
	for _, g := range s {
		l := min(g.loss(), smallLoss)
		t[count[l]] = g
		count[l]++
	}
	slices.Sort(t[count[smallLoss-1]:])
	q.sorted, q.tmp = t, s
}

// len returns the number of groups queued.
func (q *groupQueue) len() int {
	n := len(q.sorted) - q.next + len(q.made)
	if q.hasFirst {
		n++
	}
	return n
}

// min returns the first group; q must not be empty.
func (q *groupQueue) min() group {
	if q.hasFirst {
		return q.first
	}
	if q.next < len(q.sorted) && (len(q.made) == 0 || q.sorted[q.next] < q.made[0]) {
		return q.sorted[q.next]
	}
	return q.made[0]
}

// pop removes and returns the first group; q must not be empty.
func (q *groupQueue) pop() group {
	if q.hasFirst {
		q.hasFirst = false
		return q.first
	}
	if q.next < len(q.sorted) && (len(q.made) == 0 || q.sorted[q.next] < q.made[0]) {
		q.next++
		return q.sorted[q.next-1]
	}
	return q.made.pop()
}

// corner is an Unknown node's quad for min-loss capping: its top-left
// cell and its depth.
type corner struct{ x, y, depth int32 }

// prepareMinLoss computes every node's cells on the terrain (area: a
// child's is its part of its parent's quad clipped to the grid) and each
// Unknown node's corner, and queues the initial groups. Time is linear in
// the source's codes, with a pass over its code words for the Unknown ones.
func (c *Capper) prepareMinLoss() {
	src := c.src
	n := src.n
	if cap(c.area) < n {
		c.area = make([]int32, n)
		c.corner = make([]corner, n)
	}
	area, cn := c.area[:n], c.corner[:n]
	w, h := int32(c.G.Width), int32(c.G.Height)
	cn[0] = corner{}
	area[0] = int32(c.G.cellsIn(quadPos{}))
	c.groups.reset()
	for wi, word := range src.codes {
		for u := unknownMask(word); u != 0; u &= u - 1 {
			i := wi*32 + bits.TrailingZeros64(u)/2
			b := int(c.child[i])
			p := cn[i]
			half := int32(1) << (c.G.K - 1 - int(p.depth))
			// The children's widths (left, right) and heights (top,
			// bottom) on the terrain.
			wl, wr := min(max(w-p.x, 0), half), min(max(w-p.x-half, 0), half)
			ht, hb := min(max(h-p.y, 0), half), min(max(h-p.y-half, 0), half)
			a0, a1, a2, a3 := wl*ht, wr*ht, wl*hb, wr*hb
			area[b], area[b+1], area[b+2], area[b+3] = a0, a1, a2, a3
			// The children's codes, 2 bits each: Unknown is 10, Hidden 00.
			s4 := src.codes4(b)
			if unk := s4 &^ (s4 << 1) & 0xaa; unk != 0 {
				for ; unk != 0; unk &= unk - 1 {
					k := bits.TrailingZeros(unk) / 2
					cn[b+k] = corner{p.x + int32(k&1)*half, p.y + int32(k>>1)*half, p.depth + 1}
				}
				continue
			}
			hid := ^s4 & (^s4 >> 1)
			loss := int64(a0)*int64(hid&1) + int64(a1)*int64(hid>>2&1) + int64(a2)*int64(hid>>4&1) + int64(a3)*int64(hid>>6&1)
			c.groups.sorted = append(c.groups.sorted, newGroup(loss, int(p.depth), i))
		}
	}
	c.groups.start()
}

// collapseMinLoss continues the min-loss collapses until the tree is
// within limit.
func (c *Capper) collapseMinLoss(limit int, codes bool) {
	for c.over(limit, codes) && c.groups.len() > 0 {
		c.collapseLeast()
	}
}

// collapseLeast collapses the group of least loss; its parent becomes a
// group when all its children are leaves then. Once the root has collapsed
// no group is left.
func (c *Capper) collapseLeast() {
	u := c.groups.pop().node()
	if c.record {
		b := int(c.child[u])
		st := c.st[b : b+4 : b+4]
		c.order = append(c.order, int32(u))
		c.kids = append(c.kids, uint8(st[0])|uint8(st[1])<<2|uint8(st[2])<<4|uint8(st[3])<<6)
	}
	c.drop(u)
	if u == 0 {
		c.groups.reset()
		return
	}
	// The parent is a group once none of its children is Unknown.
	p := int(c.parent[u])
	b := int(c.child[p])
	st, area := c.st[b:b+4:b+4], c.area[b:b+4:b+4]
	if st[0] == Unknown || st[1] == Unknown || st[2] == Unknown || st[3] == Unknown {
		return
	}
	var loss int64
	for k, s := range st {
		if s == Hidden {
			loss += int64(area[k])
		}
	}
	c.groups.push(newGroup(loss, int(c.corner[p].depth), p))
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
	for k := 1; c.groups.len() > 0; k++ {
		l := float64(c.groups.min().loss()) * weight
		if l > stop {
			break
		}
		loss += l
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
// sizes into sizes: one pass of collapses, recorded, then undone from the
// last back to each price's prefix, smallest tree first. Each dst must not
// be src. Errors are LossSizes's.
func (c *Capper) CapAtPrices(dsts []*Tree, sizes []int32, src *Tree, ceiling int, weight float64, prices []float64) error {
	if len(dsts) != len(prices) {
		return fmt.Errorf("quadpvs: %d trees for %d prices", len(dsts), len(prices))
	}
	c.record, c.order, c.kids = true, c.order[:0], c.kids[:0]
	err := c.LossSizes(sizes, nil, src, ceiling, false, weight, prices)
	c.record = false
	if err != nil {
		return err
	}
	st := c.st
	for j := len(dsts) - 1; j >= 0; j-- {
		// Each collapse dropped 4 codes; undo the last ones until the
		// tree has sizes[j].
		for c.ncodes < int(sizes[j]) {
			k := len(c.order) - 1
			u, kids := int(c.order[k]), c.kids[k]
			c.order, c.kids = c.order[:k], c.kids[:k]
			b := int(c.child[u])
			for i := range 4 {
				s := Status(kids >> (2 * i) & 3)
				st[b+i] = s
				if s != Outside {
					c.nodes++
				}
			}
			st[u] = Unknown
			c.ncodes += 4
		}
		c.emit(dsts[j])
	}
	return nil
}

// hullPoint is a prefix of k collapses, leaving nodes nodes: the cost it
// saves and the hidden cells (times the weight) it loses.
type hullPoint struct {
	k, nodes int32
	x, y     float64
}
