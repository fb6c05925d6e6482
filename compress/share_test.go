package compress

import (
	"errors"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestFitShared: at a budget below the unshared hierarchy's size, the
// shared fit keeps a larger cap than the budget allows unshared, fits the
// budget in its accounting, and its trees expand to the re-capped ones.
func TestFitShared(t *testing.T) {
	_, flat := sharedStore(t, 40, 37)
	for _, from := range []Cap{{}, {Nodes: 1 << 20}, {MinLoss: true}} {
		budget := int64(flat.Bytes()) * 6 / 10
		if from.Nodes > 0 {
			budget = ThesisBytesPerNode * flat.StoredNodes() * 6 / 10
		}
		var trials int
		s, c, st, err := FitShared(flat, from, budget, quadpvs.ShareOptions{}, func(Cap, int64, bool) { trials++ })
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := CapForBudget(budget, flat.Quads())
		if from.Nodes > 0 {
			lo, _ = ThesisNodeCap(budget, flat.Quads())
		}
		t.Logf("from %+v: budget %d, cap %+v (unshared %+v), %d trials, %+v", from, budget, c, lo, trials, st)
		if c.Size(s) > budget || c.Codes+c.Nodes <= lo.Codes+lo.Nodes || c.MinLoss != from.MinLoss || s.SharedSubtrees() == 0 {
			t.Fatalf("from %+v: cap %+v (unshared %+v), %d bytes of %d", from, c, lo, c.Size(s), budget)
		}
		r, err := Recap(flat, c)
		if err != nil {
			t.Fatal(err)
		}
		var ex quadpvs.Tree
		for q := range r.Quads() {
			want, got := r.PVS(q), s.PVS(q)
			got.CopyTo(&ex)
			if !slices.Equal(ex.Codes(), want.Codes()) {
				t.Fatalf("quad %d: shared tree does not expand to the re-capped one", q)
			}
		}
	}
	if _, _, _, err := FitShared(flat, Cap{}, 100, quadpvs.ShareOptions{}, nil); !errors.Is(err, ErrBudget) {
		t.Errorf("tiny budget: %v", err)
	}
}
