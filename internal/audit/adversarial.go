// Package audit checks a store's frontier guarantee against the exact line
// of sight on the DEM's bilinear surface (internal/losref): an adversarial
// search for cells the store hides that exact line of sight sees, and the
// count of such cells. frontierq verify and the benchmark use it.
package audit

import (
	"math/rand/v2"
	"slices"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// AdversarialReport is Adversarial's result (frontierq verify --exact
// --adversarial).
type AdversarialReport struct {
	Observers           int     `json:"observers"`
	ConservativeVisible int     `json:"conservative_visible"` // cells the conservative model does not hide: an upper bound of the exactly visible
	Candidates          int     `json:"candidates"`           // cells the store hides that the conservative model does not
	ExactlyVisible      int     `json:"exactly_visible"`      // candidates seen by exact line of sight, one way or the other
	Violations          int     `json:"violations"`           // of those, pairs the store grows a frontier set for
	ClearanceMedianMM   float64 `json:"clearance_median_mm"`  // how far the violating lines clear the surface
	ClearanceMaxMM      float64 `json:"clearance_max_mm"`
}

// Adversarial searches where the store's frontier guarantee could fail
// against exact line of sight: from n random observers with data,
// the cells the store's PVS hides while the conservative model
// (horizon.Params.Conservative, which never hides an exactly visible cell)
// does not are the only candidates; those that exact line of sight sees in
// either direction are grown as player pairs, and a pair the store keeps
// apart with a frontier set is a violation. Each violating line's clearance
// is the least height of the sight line above the surface, sampled 16 times
// per cell.
func Adversarial(s *compress.Store, gr *grow.Grower, g *heightmap.Grid, sector *horizon.Model, opt grow.Options, n int, seed uint64) (*AdversarialReport, error) {
	p := sector.Params()
	p.LOS = horizon.LOSConservative
	cons, err := horizon.New(sector.Terrain(), p)
	if err != nil {
		return nil, err
	}
	wk := cons.NewWorker()
	lg := losref.Grid{Width: g.Width, Height: g.Height, Elev: g.Elev}
	rng := rand.New(rand.NewPCG(seed, 0xadd))
	rep := &AdversarialReport{}
	var sc grow.Scratch
	var res grow.Result
	var clear []float64
	bm := horizon.NewBitmap(g.Width, g.Height)
	h, geo := s.Hierarchy, s.Hierarchy.G
	for _, o := range observers(g, n, rng) {
		oc, or := o[0], o[1]
		rep.Observers++
		if bm, err = wk.Viewshed(oc, or, bm); err != nil {
			return nil, err
		}
		t := h.PVS(h.QuadIndex(0, oc, or))
		for r := range g.Height {
			for c := range g.Width {
				if !bm.Visible(c, r) || g.IsNodata(r*g.Width+c) {
					continue
				}
				rep.ConservativeVisible++
				if t.CellStatus(geo, c, r) != quadpvs.Hidden {
					continue
				}
				rep.Candidates++
				ab := losref.VisibleSampled(lg, oc, or, c, r, p.ObserverHeight, p.TargetHeight, 16)
				ba := losref.VisibleSampled(lg, c, r, oc, or, p.ObserverHeight, p.TargetHeight, 16)
				if !ab && !ba {
					continue
				}
				rep.ExactlyVisible++
				if err := gr.Grow([2]int{oc, or}, [2]int{c, r}, opt, &sc, &res); err != nil {
					return nil, err
				}
				if res.MutuallyVisible {
					continue
				}
				rep.Violations++
				cl := losref.Clearance(lg, oc, or, c, r, p.ObserverHeight, p.TargetHeight, 16)
				if !ab {
					cl = losref.Clearance(lg, c, r, oc, or, p.ObserverHeight, p.TargetHeight, 16)
				}
				clear = append(clear, cl*1000)
			}
		}
	}
	if len(clear) > 0 {
		slices.Sort(clear)
		rep.ClearanceMedianMM, rep.ClearanceMaxMM = clear[len(clear)/2], clear[len(clear)-1]
	}
	return rep, nil
}
