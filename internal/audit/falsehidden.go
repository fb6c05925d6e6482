package audit

import (
	"math/rand/v2"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// FalseHiddenReport is FalseHidden's result.
type FalseHiddenReport struct {
	Observers   int `json:"observers"`
	Hidden      int `json:"hidden"`       // cells with data the observers' stored PVSs hide
	FalseHidden int `json:"false_hidden"` // of those, seen by exact line of sight from the observer's eye
	// ClearanceMaxMM is how far the worst such line clears the surface.
	ClearanceMaxMM float64 `json:"clearance_max_mm"`
}

// FalseHidden checks the per-point PVSs of n random observers with data
// (the store's level-0 trees, as stored) against exact line of sight from
// the observer's eye to each hidden cell's target top, sampled 16 times
// per cell (losref.VisibleSampled). g is the store's DEM.
func FalseHidden(s *compress.Store, g *heightmap.Grid, n int, seed uint64) *FalseHiddenReport {
	p := s.Params.Horizon()
	lg := losref.Grid{Width: g.Width, Height: g.Height, Elev: g.Elev}
	rng := rand.New(rand.NewPCG(seed, 0xfa15e))
	rep := &FalseHiddenReport{}
	h, geo := s.Hierarchy, s.Hierarchy.G
	for _, o := range observers(g, n, rng) {
		oc, or := o[0], o[1]
		rep.Observers++
		t := h.PVS(h.QuadIndex(0, oc, or))
		for r := range g.Height {
			for c := range g.Width {
				if g.IsNodata(r*g.Width+c) || t.CellStatus(geo, c, r) != quadpvs.Hidden {
					continue
				}
				rep.Hidden++
				if losref.VisibleSampled(lg, oc, or, c, r, p.ObserverHeight, p.TargetHeight, 16) {
					rep.FalseHidden++
					rep.ClearanceMaxMM = max(rep.ClearanceMaxMM, 1000*losref.Clearance(lg, oc, or, c, r, p.ObserverHeight, p.TargetHeight, 16))
				}
			}
		}
	}
	return rep
}

// observers draws up to n random cells with data, in at most 100·n tries.
func observers(g *heightmap.Grid, n int, rng *rand.Rand) [][2]int {
	var out [][2]int
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		c, r := rng.IntN(g.Width), rng.IntN(g.Height)
		if !g.IsNodata(r*g.Width + c) {
			out = append(out, [2]int{c, r})
		}
	}
	return out
}
