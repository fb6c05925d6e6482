package bake

import (
	"math"
	"sort"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// capper caps a quad's PVS for every output, sampling hidden cells kept on
// every sample-th quad index. The outputs are grouped by what their caps
// count (codes for budgets, nodes) and by their policy (deepest-first,
// min-loss); each group is capped in one pass (CapEach), largest cap
// first. One per goroutine: the workers cap their blocks' quads (levels
// 0–2, nearly all of them), the writer the quads the hierarchy builder
// merges.
type capper struct {
	g      quadpvs.Geometry
	caps   []compress.Cap
	prices []*pricing // coded outputs' (nil for the others)
	sample int
	groups [4][]int          // outputs capped on codes, on nodes, then the same with min-loss; by cap, largest first
	priced []int             // coded outputs, capped at their price
	capper [2]quadpvs.Capper // deepest-first, min-loss
	pc     quadpvs.Capper    // min-loss, costs in codes: the priced outputs'
	walker quadpvs.Walker
	lims   []int
	dsts   []*quadpvs.Tree
	th     []float64
	sizes  []int32
	order  []int
}

func newCapper(g quadpvs.Geometry, caps []compress.Cap, prices []*pricing, sample int) *capper {
	c := &capper{g: g, caps: caps, prices: prices, sample: sample}
	c.capper[1] = quadpvs.Capper{MinLoss: true, G: g}
	c.pc = quadpvs.Capper{MinLoss: true, G: g, CostCodes: true}
	for i, cp := range caps {
		if prices[i] != nil {
			c.priced = append(c.priced, i)
			continue
		}
		k := 0
		if cp.MinLoss {
			k = 2
		}
		switch {
		case cp.Codes > 0:
			c.groups[k] = append(c.groups[k], i)
		case cp.Nodes > 0:
			c.groups[k+1] = append(c.groups[k+1], i)
		}
	}
	for _, gr := range c.groups {
		sort.SliceStable(gr, func(a, b int) bool { return c.limit(gr[a]) > c.limit(gr[b]) })
	}
	return c
}

// limit returns output i's cap (codes or nodes), or MaxInt when none.
func (c *capper) limit(i int) int {
	cp := c.caps[i]
	switch {
	case cp.Codes > 0:
		return cp.Codes
	case cp.Nodes > 0:
		return cp.Nodes
	}
	return math.MaxInt
}

// capped is a quad's PVS capped for every output: out[i] is t itself where
// no cap binds, else dst[i]; before and after[i] count hidden cells when the
// quad is sampled.
type capped struct {
	q       int
	t       *quadpvs.Tree
	out     []*quadpvs.Tree
	dst     []quadpvs.Tree
	step    []int32 // coded outputs: the price step capped at
	job     int     // the job (block of observers) whose merge finished the quad
	sampled bool
	before  int
	after   []int
}

// deepestBinds reports whether a deepest-first cap binds a tree of size
// codes and nodes.
func (c *capper) deepestBinds(codes, nodes int) bool {
	for _, i := range c.groups[0] {
		if codes > c.limit(i) {
			return true
		}
	}
	for _, i := range c.groups[1] {
		if nodes > c.limit(i) {
			return true
		}
	}
	return false
}

// cap caps t, the PVS of quad index q, into r (reusing its memory); r
// refers to t afterwards. trunc, when not nil, is t truncated at level 1
// (quadpvs.Encoder.EncodeBlockTruncated): deepest-first caps below its
// size start from it, as exactly and with fewer codes to go through.
func (c *capper) cap(q, job int, t, trunc *quadpvs.Tree, r *capped) error {
	n := len(c.caps)
	if len(r.out) != n {
		r.out, r.dst, r.after, r.step = make([]*quadpvs.Tree, n), make([]quadpvs.Tree, n), make([]int, n), make([]int32, n)
	}
	r.q, r.t, r.job = q, t, job
	for i := range r.out {
		r.out[i] = t
	}
	for k, gr := range c.groups {
		codes := k%2 == 0
		size := t.Len()
		if !codes {
			size = t.Nodes()
		}
		c.lims, c.dsts = c.lims[:0], c.dsts[:0]
		for _, i := range gr {
			if l := c.limit(i); size > l {
				c.lims = append(c.lims, l)
				c.dsts = append(c.dsts, &r.dst[i])
				r.out[i] = &r.dst[i]
			}
		}
		if len(c.lims) > 0 {
			src := t
			if k < 2 && trunc != nil {
				ts := trunc.Len()
				if !codes {
					ts = trunc.Nodes()
				}
				if ts > c.lims[0] {
					src = trunc
				}
			}
			if err := c.capper[k/2].CapEach(c.dsts, src, c.lims, codes); err != nil {
				return err
			}
		}
	}
	if err := c.capPriced(t, r); err != nil {
		return err
	}
	r.sampled = q%c.sample == 0
	if r.sampled {
		r.before = c.walker.HiddenCells(c.g, t)
		for i, o := range r.out {
			r.after[i] = c.walker.HiddenCells(c.g, o)
		}
	}
	return nil
}

// capPriced caps t for the coded outputs, each at its price for the quad's
// job: the trees of every price, in one pass (CapAtPrices, prices in
// increasing order, from the outputs' largest ceiling; a price's tree is
// held to its output's ceiling by the ceiling of the pass, the largest).
func (c *capper) capPriced(t *quadpvs.Tree, r *capped) error {
	if len(c.priced) == 0 {
		return nil
	}
	c.th, c.dsts = c.th[:0], c.dsts[:0]
	order := c.order[:0]
	ceiling := 0
	for _, i := range c.priced {
		price, step := c.prices[i].price(r.job)
		r.step[i] = step
		ceiling = max(ceiling, c.caps[i].Codes)
		// Insert i by price (a handful of outputs).
		k := len(order)
		order, c.th = append(order, i), append(c.th, price)
		for ; k > 0 && c.th[k-1] > price; k-- {
			order[k], c.th[k] = order[k-1], c.th[k-1]
		}
		order[k], c.th[k] = i, price
	}
	c.order = order
	if cap(c.sizes) < len(c.th) {
		c.sizes = make([]int32, len(c.th))
	}
	for _, i := range order {
		c.dsts = append(c.dsts, &r.dst[i])
	}
	if err := c.pc.CapAtPrices(c.dsts, c.sizes[:len(c.th)], t, ceiling, 1, c.th); err != nil {
		return err
	}
	for k, i := range order {
		r.out[i] = c.dsts[k]
		if int(c.sizes[k]) >= t.Len() {
			r.out[i] = t
		}
	}
	return nil
}

// writer hands capped quads to a sink, tallying each output's statistics.
type writer struct {
	sink  sink
	tally []compress.Tally // per output
}

// write hands r's trees to the sink, with r.t itself when root (a
// shard's subtree root).
func (w *writer) write(r *capped, root bool) error {
	for i, o := range r.out {
		w.tally[i].Tree(o)
		if r.sampled {
			w.tally[i].Hidden(r.before, r.after[i])
		}
	}
	var full *quadpvs.Tree
	if root {
		full = r.t
	}
	return w.sink.add(r, full)
}
