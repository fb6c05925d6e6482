package interest

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
)

// TestRegionMemoCache: the memo's direct-mapped cache, as large grids use
// it (no table) and shrunk to 64 slots so that pairs evict each other,
// answers every pair of quads of mixed levels as the grower does, both
// ways round, and costs no lookup for a pair asked again at once.
func TestRegionMemoCache(t *testing.T) {
	w := newWorld(t, "N44W072.hgt", heightmap.Window{Col: 800, Row: 820, Width: 40, Height: 36}, 0)
	g := w.gr.Geometry()
	for _, slots := range []int{64, memoSlots} {
		m := &regionMemo{gr: w.gr, level: 3, slots: slots}
		rng := rand.New(rand.NewPCG(7, uint64(slots)))
		quad := func() grow.Quad {
			l := rng.IntN(4)
			c, r := g.QuadsAcross(l)
			return grow.Quad{Level: l, X: rng.IntN(c), Y: rng.IntN(r)}
		}
		var pairs [][2]grow.Quad
		for range 400 {
			pairs = append(pairs, [2]grow.Quad{quad(), quad()})
		}
		hidden := 0
		asked := map[[2]grow.Quad]bool{}
		for round := range 3 {
			for _, p := range pairs {
				a, b := p[0], p[1]
				if round == 2 {
					a, b = b, a
				}
				want := w.gr.QuadsHidden(a, b)
				got, cost := m.hidden(a, b)
				if got != want {
					t.Fatalf("%d slots: %v and %v: hidden %v, the grower says %v", slots, a, b, got, want)
				}
				if got, cost2 := m.hidden(a, b); got != want || cost2 != 0 {
					t.Fatalf("%d slots: %v and %v asked again: %v at a cost of %d", slots, a, b, got, cost2)
				}
				if !asked[[2]grow.Quad{a, b}] && !asked[[2]grow.Quad{b, a}] && cost != 2 {
					t.Fatalf("%d slots: a new pair cost %d lookups", slots, cost)
				}
				asked[[2]grow.Quad{a, b}] = true
				if want {
					hidden++
				}
			}
		}
		if hidden == 0 || hidden == 3*len(pairs) {
			t.Errorf("%d slots: %d of %d answers hidden: the test does not tell the answers apart", slots, hidden, 3*len(pairs))
		}
	}
}
