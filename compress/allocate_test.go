package compress

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestAllocate: on the golden crop's uncapped trees, at several budgets in
// both accountings, the global allocation fits the budget and the ceiling, every tree is the
// min-loss cap of the uncapped tree at its own size (so nothing visible is
// hidden), and it keeps at least as many hidden cells as the uniform
// min-loss cap of the same budget.
func TestAllocate(t *testing.T) {
	s, err := Decode(bytes.NewReader(goldenStore(t, Cap{}, false)))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hierarchy
	g := h.G
	var w quadpvs.Walker
	hidden := func(h *quadpvs.Hierarchy) (n int64) {
		for q := range h.Quads() {
			tr := h.PVS(q)
			n += int64(w.HiddenCells(g, &tr))
		}
		return n
	}
	all := hidden(h)
	full := int64(h.Bytes())
	c := quadpvs.Capper{MinLoss: true, G: g}
	least := int64(h.Quads()) * int64(QuadOverhead+quadtree.BytesFor(1))
	for _, thesis := range []bool{false, true} {
		// The budget runs from one code (node) per quad to the uncapped size.
		lo, hi := least, full
		kind := Cap{}
		if thesis {
			lo, hi, kind = int64(h.Quads())*ThesisBytesPerNode, ThesisBytesPerNode*h.StoredNodes(), Cap{Nodes: 1}
		}
		for _, frac := range []float64{0.02, 0.1, 0.3, 0.6} {
			budget := lo + int64(frac*float64(hi-lo))
			out, a, err := Allocate(h, Cap{}, budget, AllocateOptions{Thesis: thesis})
			if err != nil {
				t.Fatal(err)
			}
			uniform, _ := BudgetCap(kind, budget, h.Quads())
			uniform.MinLoss = true
			size, ceiling, over := int64(out.Bytes()), a.CeilingCodes, func(t *quadpvs.Tree) int { return t.Len() }
			if thesis {
				size, ceiling, over = ThesisBytesPerNode*out.StoredNodes(), a.CeilingNodes, func(t *quadpvs.Tree) int { return t.Nodes() }
			}
			if size > budget {
				t.Errorf("thesis %v, %.2f: %d bytes, over the budget %d", thesis, frac, size, budget)
			}
			if a.Policy != "global" || ceiling != DefaultCeilingFactor*max(uniform.Codes, uniform.Nodes) || a.LevelWeight != 1 || (a.Accounting == "thesis") != thesis {
				t.Errorf("thesis %v, %.2f: allocation %+v", thesis, frac, a)
			}
			var ref quadpvs.Tree
			for q := range h.Quads() {
				in, got := h.PVS(q), out.PVS(q)
				if over(&got) > ceiling {
					t.Fatalf("thesis %v, %.2f: quad %d at %d, over the ceiling %d", thesis, frac, q, over(&got), ceiling)
				}
				want := &in
				if in.Len() > got.Len() {
					if err := c.CapCodes(&ref, &in, got.Len()); err != nil {
						t.Fatal(err)
					}
					want = &ref
				}
				if want.Len() != got.Len() || !slices.Equal(want.Codes(), got.Codes()) {
					t.Fatalf("thesis %v, %.2f: quad %d is not the min-loss cap of its tree at %d codes", thesis, frac, q, got.Len())
				}
			}
			re, err := Recap(h, uniform)
			if err != nil {
				t.Fatal(err)
			}
			kept, keptUniform := hidden(out), hidden(re)
			t.Logf("thesis %v, budget %.0f%%: hidden kept %.2f%% global (λ %g, %d relaxed), %.2f%% uniform at %+v",
				thesis, 100*frac, 100*float64(kept)/float64(all), a.Threshold, a.Relaxed, 100*float64(keptUniform)/float64(all), uniform)
			if kept < keptUniform {
				t.Errorf("thesis %v, %.2f: global allocation keeps %d hidden cells, the uniform cap %d", thesis, frac, kept, keptUniform)
			}
		}
	}
	if _, _, err := Allocate(h, Cap{}, least-1, AllocateOptions{}); !errors.Is(err, ErrBudget) {
		t.Errorf("budget below one code per quad: %v", err)
	}
	if _, _, err := Allocate(h, Cap{}, full, AllocateOptions{LevelWeight: -1}); err == nil {
		t.Error("negative level weight accepted")
	}
}
