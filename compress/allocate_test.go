package compress

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestAllocate: on the golden crop's uncapped trees, at several budgets,
// the global allocation fits the budget and the ceiling, every tree is the
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
	least := int64(h.Quads()) * int64(QuadOverhead+quadpvs.BytesFor(1))
	for _, frac := range []float64{0.02, 0.1, 0.3, 0.6} {
		budget := least + int64(frac*float64(full-least))
		out, a, err := Allocate(h, Cap{}, budget, AllocateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uniform, _ := CapForBudget(budget, h.Quads())
		if got := int64(out.Bytes()); got > budget {
			t.Errorf("%.2f: %d bytes, over the budget %d", frac, got, budget)
		}
		if a.Policy != "global" || a.CeilingCodes != DefaultCeilingFactor*uniform.Codes || a.LevelWeight != 1 {
			t.Errorf("%.2f: allocation %+v", frac, a)
		}
		var ref quadpvs.Tree
		for q := range h.Quads() {
			in, got := h.PVS(q), out.PVS(q)
			if got.Len() > a.CeilingCodes {
				t.Fatalf("%.2f: quad %d has %d codes, over the ceiling %d", frac, q, got.Len(), a.CeilingCodes)
			}
			want := &in
			if in.Len() > got.Len() {
				if err := c.CapCodes(&ref, &in, got.Len()); err != nil {
					t.Fatal(err)
				}
				want = &ref
			}
			if want.Len() != got.Len() || !slices.Equal(want.Codes(), got.Codes()) {
				t.Fatalf("%.2f: quad %d is not the min-loss cap of its tree at %d codes", frac, q, got.Len())
			}
		}
		re, err := Recap(h, Cap{Codes: uniform.Codes, MinLoss: true})
		if err != nil {
			t.Fatal(err)
		}
		kept, keptUniform := hidden(out), hidden(re)
		t.Logf("budget %.0f%%: hidden kept %.2f%% global (λ %g, %d relaxed), %.2f%% uniform at %d codes; %d vs %d bytes",
			100*frac, 100*float64(kept)/float64(all), a.Threshold, a.Relaxed, 100*float64(keptUniform)/float64(all), uniform.Codes, out.Bytes(), re.Bytes())
		if kept < keptUniform {
			t.Errorf("%.2f: global allocation keeps %d hidden cells, the uniform cap %d", frac, kept, keptUniform)
		}
	}
	if _, _, err := Allocate(h, Cap{}, least-1, AllocateOptions{}); !errors.Is(err, ErrBudget) {
		t.Errorf("budget below one code per quad: %v", err)
	}
	if _, _, err := Allocate(h, Cap{}, full, AllocateOptions{LevelWeight: -1}); err == nil {
		t.Error("negative level weight accepted")
	}
}
