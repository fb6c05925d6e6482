package compress

import (
	"errors"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// Recap returns h's trees each capped at cp with cp's policy (Cap.Apply),
// in a new hierarchy without references. Re-capping a store's trees at a
// cap no larger than the one it was baked with gives the trees a bake at
// the smaller cap would have written: a smaller cap continues the larger
// one's collapses (quadpvs.Capper, for both policies).
func Recap(h *quadpvs.Hierarchy, cp Cap) (*quadpvs.Hierarchy, error) {
	if h.SharedSubtrees() > 0 {
		return nil, errors.New("compress: re-capping a shared hierarchy: share after capping")
	}
	out := quadpvs.NewHierarchy(h.G)
	var c quadpvs.Capper
	var dst quadpvs.Tree
	for l := range h.G.Levels() {
		cols, rows := h.G.QuadsAcross(l)
		for y := range rows {
			for x := range cols {
				t := h.PVS(h.QuadIndex(l, x, y))
				out.Set(l, x, y, cp.Apply(&c, h.G, &dst, &t))
			}
		}
	}
	return out, nil
}

// Size returns the memory h takes in the accounting of cp's kind: the
// loaded hierarchy's bytes (Hierarchy.Bytes) for a code cap, the thesis's
// 3 bytes per stored node for a node cap (quadpvs.Hierarchy.StoredNodes:
// a reference is one node, whose child index points at the shared
// subtree).
func (cp Cap) Size(h *quadpvs.Hierarchy) int64 {
	if cp.Nodes > 0 {
		return ThesisBytesPerNode * h.StoredNodes()
	}
	return int64(h.Bytes())
}

// BudgetCap returns the cap budget bytes allow without sharing, of kind's
// kind (a node cap when kind.Nodes > 0: ThesisNodeCap; else a code cap:
// CapForBudget) and with kind's policy. Errors wrap ErrBudget.
func BudgetCap(kind Cap, budget int64, quads int) (Cap, error) {
	var c Cap
	var err error
	if kind.Nodes > 0 {
		c, err = ThesisNodeCap(budget, quads)
	} else {
		c, err = CapForBudget(budget, quads)
	}
	c.MinLoss = kind.MinLoss
	return c, err
}

// FitShared re-caps h (a store's trees, capped at from: zero for none) at
// the largest cap of from's kind and policy whose shared hierarchy
// (quadpvs.Hierarchy.Share with opt) fits budget bytes in that kind's
// accounting (Size), and returns it with its cap. The search starts from
// the cap the budget allows without sharing (BudgetCap), which always
// fits unshared, and ends at from (a store holds nothing beyond its own
// cap): bake at a larger budget to give sharing room. It stops when the
// cap is known to within 1% (or 32 codes, 8 nodes). progress, when not
// nil, is called after each trial. When sharing lets no larger cap fit
// and does not make the trees at the unshared cap smaller (on small
// terrains the reference index costs more than sharing saves), the result
// is the hierarchy at the unshared cap without sharing (Shared 0). Errors:
// ErrBudget for a budget below one node per quad.
func FitShared(h *quadpvs.Hierarchy, from Cap, budget int64, opt quadpvs.ShareOptions, progress func(c Cap, size int64, fits bool)) (*quadpvs.Hierarchy, Cap, quadpvs.ShareStats, error) {
	lo, err := BudgetCap(from, budget, h.Quads())
	if err != nil {
		return nil, Cap{}, quadpvs.ShareStats{}, err
	}
	// hi: the input's own cap, or its largest tree when uncapped.
	hi := from
	if hi.Codes == 0 && hi.Nodes == 0 {
		for q := range h.Quads() {
			t := h.PVS(q)
			hi.Codes = max(hi.Codes, t.Len())
		}
	}
	val := func(c Cap) int { return c.Codes + c.Nodes }
	with := func(v int) Cap {
		c := lo
		if c.Nodes > 0 {
			c.Nodes = v
		} else {
			c.Codes = v
		}
		return c
	}
	var loFlat *quadpvs.Hierarchy // the trees at lo, unshared
	try := func(v int) (*quadpvs.Hierarchy, quadpvs.ShareStats, int64, error) {
		c := with(v)
		r, err := Recap(h, c)
		if err != nil {
			return nil, quadpvs.ShareStats{}, 0, err
		}
		if loFlat == nil {
			loFlat = r
		}
		s, st, err := r.Share(opt)
		if err != nil {
			return nil, st, 0, err
		}
		size := c.Size(s)
		if progress != nil {
			progress(c, size, size <= budget)
		}
		return s, st, size, nil
	}
	a, b := val(lo), max(val(hi), val(lo))
	best, bestSt, size, err := try(a)
	if err != nil {
		return nil, Cap{}, bestSt, err
	}
	if size > budget || size >= lo.Size(loFlat) {
		// Sharing does not pay at the unshared cap; a larger one is tried
		// only if the shared trees fit there at all.
		best = nil
	}
	bestV, fits := a, a // fits: the largest cap known to fit, or lo
	step := 32
	if lo.Nodes > 0 {
		step = 8
	}
	for m := b; m > fits; m = fits + (b-fits)/2 { // hi first, then bisect
		s, st, size, err := try(m)
		if err != nil {
			return nil, Cap{}, st, err
		}
		if size <= budget {
			best, bestSt, bestV, fits = s, st, m, m
		} else {
			b = m
		}
		if b-fits <= max(step, fits/100) {
			break
		}
	}
	if best == nil {
		st := quadpvs.ShareStats{CodesFlat: bestSt.CodesFlat, CodesKept: bestSt.CodesFlat, BytesFlat: bestSt.BytesFlat, BytesShare: bestSt.BytesFlat}
		return loFlat, lo, st, nil
	}
	return best, with(bestV), bestSt, nil
}
