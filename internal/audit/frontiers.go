package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// FrontierAudit is an audit of a store's frontier sets (Frontiers, the
// work of frontierq verify): random mutually invisible pairs, each grown,
// and sampled points of each side checked against the other side.
type FrontierAudit struct {
	Store  *compress.Store
	Grower *grow.Grower
	// Grid is the DEM the store was baked from, as the store's cells (its
	// PVS cells, with their heightmap, where the store's are coarser:
	// heightmap.Coarsen); Model its visibility model with the store's
	// parameters.
	Grid  *heightmap.Grid
	Model *horizon.Model
	Grow  grow.Options
	// Pairs to draw, and Sample points of each side to check (0: all).
	Pairs, Sample int
	// Exact checks against exact line of sight on the heightmap's bilinear
	// surface (internal/losref) instead of the recomputed PVS; with
	// Positions > 0, between positions inside the two cells (the 16 corner
	// combinations, Positions random pairs and an ascent), each sampled
	// point against Sample points of the other side drawn for it (every
	// point of the other side otherwise: a position check costs tens of
	// line-of-sight tests, and frontier sets hold thousands of points).
	Exact     bool
	Positions int
	// Seed fixes the pairs, the sampled points and the positions, whatever
	// the workers and their scheduling: pair i draws from its own source,
	// seeded by Seed and i.
	Seed    uint64
	Workers int // 0: GOMAXPROCS
	// Progress, when set, is called from the workers, one at a time, with
	// the pairs done and the total.
	Progress func(done, total int)
}

// FrontierReport is Frontiers' result.
type FrontierReport struct {
	Pairs          int    `json:"pairs"`
	FrontierPoints int    `json:"frontier_points"`
	Checked        int    `json:"points_checked"` // sampled points with data
	Check          string `json:"check"`          // how they were checked
	PositionPairs  int    `json:"position_pairs"` // with Positions: position pairs tried
	Violations     int    `json:"violations"`     // sampled points that see the other side (either way)
}

// ErrFewPairs reports a store on which too few mutually invisible pairs
// were found.
var ErrFewPairs = errors.New("audit: too few mutually invisible pairs")

// Frontiers audits a store's frontier guarantee (a.Pairs random mutually
// invisible pairs, a point of one side that sees a point of the other is a
// violation) and returns the counts. Errors: ErrFewPairs when fewer than
// a.Pairs pairs were found in 1,000 tries each, the grower's and the
// model's, ctx's.
func Frontiers(ctx context.Context, a FrontierAudit) (FrontierReport, error) {
	s, gr, g := a.Store, a.Grower, a.Grid
	hm := g // the heightmap; g is its PVS cells where the store's are coarser
	if g.Heightmap != nil {
		hm = g.Heightmap
	}
	rng := rand.New(rand.NewPCG(a.Seed, 0x5eed))
	type job struct{ a, b [2]int }
	var jobs []job
	for tries := 0; len(jobs) < a.Pairs && tries < 1000*a.Pairs; tries++ {
		p := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		q := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		if vis, err := gr.MutuallyVisible(p, q); err != nil || vis {
			continue // identical or nodata points, or mutually visible
		}
		jobs = append(jobs, job{p, q})
	}
	if len(jobs) < a.Pairs {
		return FrontierReport{}, fmt.Errorf("%w: %d in %d tries", ErrFewPairs, len(jobs), 1000*a.Pairs)
	}
	rep := FrontierReport{Pairs: len(jobs), Check: "PVS recomputed"}
	switch {
	case a.Exact && a.Positions > 0:
		rep.Check = "exact line of sight between positions inside the cells"
	case a.Exact:
		rep.Check = "exact line of sight"
	}
	hp := s.Params.Horizon()
	tr := a.Model.Terrain()
	lg := losref.Grid{Width: hm.Width, Height: hm.Height, Elev: hm.Elev}
	// The store's view distance ends every line of sight, as the bake's:
	// a cell farther than MaxDistance metres (the same float32 distance
	// between cell centres) is hidden; between positions, only cells all
	// of whose positions are farther.
	beyond := func(p, q [2]int) bool {
		return hp.MaxDistance > 0 && float32(math.Hypot(float64(p[0]-q[0])*tr.Dx, float64(p[1]-q[1])*tr.Dy)) > float32(hp.MaxDistance)
	}
	if a.Positions > 0 {
		diag := math.Hypot(tr.Dx, tr.Dy)
		beyond = func(p, q [2]int) bool {
			return hp.MaxDistance > 0 && math.Hypot(float64(p[0]-q[0])*tr.Dx, float64(p[1]-q[1])*tr.Dy) > hp.MaxDistance+diag
		}
	}
	var mu sync.Mutex
	done := 0 // pairs audited
	eg, ctx := errgroup.WithContext(ctx)
	next := make(chan int, len(jobs))
	for i := range jobs {
		next <- i
	}
	close(next)
	workers := a.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range workers {
		eg.Go(func() error {
			wk := a.Model.NewWorker()
			var sc grow.Scratch
			var res grow.Result
			bm := horizon.NewBitmap(s.Width, s.Height)
			pos := losref.Positions{Grid: lg, Cell: s.Params.PVSCell, HObs: hp.ObserverHeight, Tau: hp.TargetHeight, PerCell: 16,
				Random: a.Positions, Search: true, Dx: hm.Dx, Dy: hm.Dy, MaxDistance: hp.MaxDistance}
			for i := range next {
				if err := ctx.Err(); err != nil {
					return err
				}
				j := jobs[i]
				if err := gr.Grow(j.a, j.b, a.Grow, &sc, &res); err != nil {
					return err
				}
				rng := rand.New(rand.NewPCG(a.Seed, uint64(i)))
				c, v, np := 0, 0, 0
				for side, f := range [2]*grow.Frontier{&res.A, &res.B} {
					of := [2]*grow.Frontier{&res.A, &res.B}[1-side]
					other := of.AppendCells(nil)
					for _, p := range SamplePoints(f, a.Sample, rng) {
						if g.IsNodata(p[1]*g.Width + p[0]) {
							continue // no player stands there; the bake hides nodata cells
						}
						c++
						if !a.Exact {
							var err error
							if bm, err = wk.Viewshed(p[0], p[1], bm); err != nil {
								return err
							}
							// p sees a point of the other frontier: A→B or B→A.
							for _, q := range other {
								if bm.Visible(q[0], q[1]) && !g.IsNodata(q[1]*g.Width+q[0]) {
									v++
								}
							}
							continue
						}
						// p sees q, or q sees p: the exact line of sight
						// between an eye and a target's top, both ways.
						qs := other
						if a.Positions > 0 && a.Sample > 0 {
							qs = sampleCells(other, a.Sample, [2]int{of.Col, of.Row}, rng)
						}
						for _, q := range qs {
							if g.IsNodata(q[1]*g.Width+q[0]) || beyond(p, q) {
								continue
							}
							if a.Positions > 0 {
								// Both ways when the heights differ.
								n, best := pos.Worst(rng, p[0], p[1], q[0], q[1])
								np += n
								if hp.ObserverHeight != hp.TargetHeight {
									n2, best2 := pos.Worst(rng, q[0], q[1], p[0], p[1])
									np, best = np+n2, max(best, best2)
								}
								if best >= 0 {
									v++
								}
								continue
							}
							if losref.Visible(lg, p[0], p[1], q[0], q[1], hp.ObserverHeight, hp.TargetHeight) ||
								losref.Visible(lg, q[0], q[1], p[0], p[1], hp.ObserverHeight, hp.TargetHeight) {
								v++
							}
						}
					}
				}
				mu.Lock()
				rep.Checked += c
				rep.Violations += v
				rep.PositionPairs += np
				rep.FrontierPoints += res.A.Points + res.B.Points
				done++
				if a.Progress != nil {
					a.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return FrontierReport{}, err
	}
	return rep, nil
}

// SamplePoints returns n random cells of f (all of them when n is 0 or
// larger than the frontier), always including the player's own cell.
func SamplePoints(f *grow.Frontier, n int, rng *rand.Rand) [][2]int {
	return sampleCells(f.AppendCells(nil), n, [2]int{f.Col, f.Row}, rng)
}

// sampleCells returns n random cells of all (all of them when n is 0 or
// at least len(all)), the last one own; it shuffles all in place.
func sampleCells(all [][2]int, n int, own [2]int, rng *rand.Rand) [][2]int {
	if n == 0 || n >= len(all) {
		return all
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return append(all[:n-1:n-1], own)
}
