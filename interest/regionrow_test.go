package interest

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
)

// TestRegionRow: with the memo as large grids keep it (no table), a row of
// region pairs decided a quad of regions at a time finds every pair the
// memo finds pair by pair, and every pair it finds is disjoint and
// certified both ways by the PVS of a quad holding each region; on both
// real terrains, regions of mixed levels (a ring grows some), players
// sharing regions.
func TestRegionRow(t *testing.T) {
	for _, wc := range []struct {
		name string
		win  heightmap.Window
	}{
		{"N44W072.hgt", heightmap.Window{Col: 800, Row: 820, Width: 40, Height: 36}},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 37, Height: 40}},
	} {
		w := newWorld(t, wc.name, wc.win, 0)
		g := w.gr.Geometry()
		for _, level := range []int{1, 2} {
			const n = 64
			jt, err := NewJoint(w.gr, n, JointOptions{Far: level})
			if err != nil {
				t.Fatal(err)
			}
			jt.memo.table = nil // the cache alone, as on grids past maxRegionTable
			rng := rand.New(rand.NewPCG(3, uint64(level)))
			region := func() grow.Quad {
				l := level
				if rng.IntN(6) == 0 {
					l += 1 + rng.IntN(2)
				}
				c, r := g.QuadsAcross(l)
				return grow.Quad{Level: l, X: rng.IntN(c), Y: rng.IntN(r)}
			}
			found, grouped, rowLookups, pairLookups := 0, 0, int64(0), 0
			for k := range 200 {
				// Players 0…n−2 placed; player n−1 enters reg.
				jt.regs = quadOrder{}
				for j := range n - 1 {
					if j > 0 && rng.IntN(8) == 0 {
						jt.reg[j] = jt.reg[rng.IntN(j)] // a region shared
					} else {
						jt.reg[j] = region()
					}
					jt.regs.insert(j, jt.reg[j])
				}
				reg := region()
				clear(jt.rowHid)
				jt.res.Lookups = 0
				jt.regionRow(reg, jt.reg, level)
				rowLookups += jt.res.Lookups
				for j := range n - 1 {
					want, got := w.gr.QuadsHidden(reg, jt.reg[j]), jt.rowHid[j]
					pairLookups += 2
					if want && !got {
						t.Fatalf("%s level %d, row %d: %v and player %d's %v hidden pair by pair, not in the row", wc.name, level, k, reg, j, jt.reg[j])
					}
					if got && !certified(w.gr, reg, jt.reg[j]) {
						t.Fatalf("%s level %d, row %d: %v and player %d's %v silent in the row, not certified", wc.name, level, k, reg, j, jt.reg[j])
					}
					if got {
						found++
					}
					if got && !want {
						grouped++
					}
				}
			}
			if found == 0 || found == 200*(n-1) {
				t.Errorf("%s level %d: %d of %d pairs hidden: the test does not tell the answers apart", wc.name, level, found, 200*(n-1))
			}
			t.Logf("%s level %d: %d pairs hidden (%d only through a quad of regions), %d lookups against %d pair by pair", wc.name, level, found, grouped, rowLookups, pairLookups)
		}
	}
}
