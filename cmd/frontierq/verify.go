package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/audit"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// runVerify audits a store's frontier sets against uncompressed per-point
// PVSs recomputed from the DEM with the store's window and parameters: for
// random mutually invisible pairs, sampled points of each frontier must not
// see, nor be seen from, any point of the other frontier. With --exact the
// check is the exact line of sight (internal/losref) from each sampled point
// to every point of the other frontier and back, which the store's sector
// model only approximates: a store baked with a margin (--margin) should
// pass it. With --positions N (the default for stores of the region
// model), each cell pair is checked at positions inside the two cells
// instead of their sample points: the 16 corner combinations, N random
// pairs and an ascent to the highest sight line (losref.Positions).
func verifyCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "verify STORE [--dem DEM]", Short: "Audit a store's frontier sets against per-point PVSs recomputed from its DEM", Args: cli.Args("STORE")}
	c.Example = `  frontierq verify mw.pvs --pairs 50
  frontierq verify mw.pvs --dem data/mount-washington.tif --exact --adversarial`
	fs := c.Flags()
	var gf growFlags
	gf.register(fs)
	var dem cli.DEMFlags
	dem.Register(fs)
	demPath := fs.String("dem", "", "the `DEM` the store was baked from (default: the path the store names, with the loading flags it recorded)")
	pairs := fs.Int("pairs", 100, "random mutually invisible `pairs` to check")
	sample := fs.Int("sample", 64, "frontier `points` per side whose PVS is recomputed (0: every point)")
	seed := fs.Uint64("seed", 1, "random `seed`")
	asJSON := cli.JSONFlag(fs, "the counts")
	quiet := fs.BoolP("quiet", "q", false, "no progress lines")
	exact := fs.Bool("exact", false, "check against the exact line of sight (the segment on the bilinear surface) instead of the store's sector model")
	positions := fs.Int("positions", -1, "with --exact: check each cell pair at positions inside the two cells — the 16 corner combinations, this many random pairs and an ascent to the highest sight line — instead of their sample points (0: sample points; default 16 for stores of the region model, else 0)")
	adversarial := fs.Bool("adversarial", false, "with --exact: search, from --pairs random observers, the cells the store calls hidden that exact line of sight sees, and grow frontier sets for those pairs")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *adversarial && !*exact {
			return cli.Usagef("--adversarial searches against the exact line of sight: add --exact")
		}
		if fs.Changed("positions") && (*positions < 0 || *positions > maxPositions || !*exact || *adversarial) {
			return cli.Usagef("--positions %d: want 0 to %d random position pairs per cell pair, with --exact and without --adversarial", *positions, maxPositions)
		}
		if *pairs < 1 || *pairs > maxPairs || *sample < 0 || *sample > maxSample {
			return cli.Usagef("--pairs %d, --sample %d: want 1 to %d pairs and 0 to %d points", *pairs, *sample, maxPairs, maxSample)
		}
		opt, err := gf.options()
		if err != nil {
			return err
		}
		s, gr, err := openGrower(pos[0])
		if err != nil {
			return err
		}
		g, err := storeDEM(s, pos[0], "verify", *demPath, &dem, fs, stderr)
		if err != nil {
			return err
		}
		hm := g // the heightmap; g is its PVS cells where the store's are coarser
		if g.Heightmap != nil {
			hm = g.Heightmap
		}
		model, err := horizon.New(bake.Terrain(g), s.Params.Horizon())
		if err != nil {
			return err
		}
		if *positions < 0 {
			*positions = 0
			if s.Params.Horizon().LOS == horizon.LOSRegion {
				*positions = 16
			}
		}
		if *exact && *positions == 0 && s.Params.PVSCell > 1 {
			return cli.Usagef("--positions 0: the store's cells are PVS cells of %d×%d heightmap cells, which have no one sample point; want --positions 1 or more", s.Params.PVSCell, s.Params.PVSCell)
		}
		if *adversarial {
			rep, err := audit.Adversarial(s, gr, g, model, opt, *pairs, *seed)
			if err != nil {
				return err
			}
			if *asJSON {
				if err := cli.WriteJSON(stdout, rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(stdout, "adversarial: %d observers; %d cells the store hides but the conservative model does not; %d of them seen by exact line of sight (either way), among %d visible by the conservative model; %d with a frontier set (violations); clearance of those lines median %.0f mm, max %.0f mm\n",
					rep.Observers, rep.Candidates, rep.ExactlyVisible, rep.ConservativeVisible, rep.Violations, rep.ClearanceMedianMM, rep.ClearanceMaxMM)
			}
			if rep.Violations > 0 {
				return fmt.Errorf("%d pairs with a frontier set see each other by exact line of sight", rep.Violations)
			}
			return nil
		}
		rng := rand.New(rand.NewPCG(*seed, 0x5eed))
		type job struct{ a, b [2]int }
		var jobs []job
		for tries := 0; len(jobs) < *pairs && tries < 1000*(*pairs); tries++ {
			a := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
			b := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
			if vis, err := gr.MutuallyVisible(a, b); err != nil || vis {
				continue // identical or nodata points, or mutually visible
			}
			jobs = append(jobs, job{a, b})
		}
		if len(jobs) < *pairs {
			return fmt.Errorf("found only %d mutually invisible pairs in %d tries", len(jobs), 1000*(*pairs))
		}
		var mu sync.Mutex
		checked, violations, points, done, posPairs := 0, 0, 0, 0, 0
		if !*quiet {
			stop := make(chan struct{})
			defer close(stop)
			go func(start time.Time) {
				tick := time.NewTicker(10 * time.Second)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case now := <-tick.C:
						mu.Lock()
						d := done
						mu.Unlock()
						fmt.Fprintf(stderr, "frontierq verify: %d of %d pairs after %s\n", d, len(jobs), now.Sub(start).Round(time.Second))
					}
				}
			}(time.Now())
		}
		var eg errgroup.Group
		next := make(chan int, len(jobs))
		for i := range jobs {
			next <- i
		}
		close(next)
		for range runtime.GOMAXPROCS(0) {
			eg.Go(func() error {
				wk := model.NewWorker()
				var sc grow.Scratch
				var res grow.Result
				bm := horizon.NewBitmap(s.Width, s.Height)
				rng := rand.New(rand.NewPCG(*seed, 7))
				lg := losref.Grid{Width: hm.Width, Height: hm.Height, Elev: hm.Elev}
				hp := s.Params.Horizon()
				tr := model.Terrain()
				// The store's view distance ends every line of sight, as the
				// bake's: a cell farther than MaxDistance metres (the same
				// float32 distance between cell centres) is hidden.
				beyond := func(p, q [2]int) bool {
					return hp.MaxDistance > 0 && float32(math.Hypot(float64(p[0]-q[0])*tr.Dx, float64(p[1]-q[1])*tr.Dy)) > float32(hp.MaxDistance)
				}
				// Positions: every pair farther apart than MaxDistance sees
				// nothing, so cells are skipped only when all of theirs are.
				pos := losref.Positions{Grid: lg, Cell: s.Params.PVSCell, HObs: hp.ObserverHeight, Tau: hp.TargetHeight, PerCell: 16,
					Random: *positions, Search: true, Dx: hm.Dx, Dy: hm.Dy, MaxDistance: hp.MaxDistance}
				if *positions > 0 {
					diag := math.Hypot(tr.Dx, tr.Dy)
					beyond = func(p, q [2]int) bool {
						return hp.MaxDistance > 0 && math.Hypot(float64(p[0]-q[0])*tr.Dx, float64(p[1]-q[1])*tr.Dy) > hp.MaxDistance+diag
					}
				}
				np := 0
				for i := range next {
					j := jobs[i]
					if err := gr.Grow(j.a, j.b, opt, &sc, &res); err != nil {
						return err
					}
					c, v := 0, 0
					for side, f := range [2]*grow.Frontier{&res.A, &res.B} {
						other := [2]*grow.Frontier{&res.A, &res.B}[1-side].AppendCells(nil)
						for _, p := range samplePoints(f, *sample, rng) {
							if g.IsNodata(p[1]*g.Width + p[0]) {
								continue // no player stands there; the bake hides nodata cells
							}
							c++
							if *exact {
								// p sees q, or q sees p: the exact line of sight between
								// an eye and a target's top, both ways.
								for _, q := range other {
									if g.IsNodata(q[1]*g.Width+q[0]) || beyond(p, q) {
										continue
									}
									if *positions > 0 {
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
								continue
							}
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
						}
					}
					mu.Lock()
					checked += c
					violations += v
					posPairs += np
					np = 0
					points += res.A.Points + res.B.Points
					done++
					mu.Unlock()
				}
				return nil
			})
		}
		if err := eg.Wait(); err != nil {
			return err
		}
		how := "PVS recomputed"
		switch {
		case *exact && *positions > 0:
			how = fmt.Sprintf("exact line of sight between positions inside the cells: %d position pairs", posPairs)
		case *exact:
			how = "exact line of sight"
		}
		if *asJSON {
			if err := cli.WriteJSON(stdout, map[string]any{"pairs": len(jobs), "frontier_points": points, "points_checked": checked,
				"check": how, "position_pairs": posPairs, "violations": violations}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(stdout, "pairs %d, frontier points %d, points checked %d (%s, both directions), violations %d\n",
				len(jobs), points, checked, how, violations)
		}
		if violations > 0 {
			return fmt.Errorf("%d violations of the frontier guarantee", violations)
		}
		return nil
	}
	return c
}

// samplePoints returns n random cells of f (all of them when n is 0 or
// larger than the frontier), always including the player's own cell.
func samplePoints(f *grow.Frontier, n int, rng *rand.Rand) [][2]int {
	all := f.AppendCells(nil)
	if n == 0 || n >= len(all) {
		return all
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	out := append(all[:n-1:n-1], [2]int{f.Col, f.Row})
	return out
}

// Bounds of verify's counts: a million pairs is hours of work; a side's
// sample beyond a million points is every point of any storable frontier.
const (
	maxPairs     = 1_000_000
	maxSample    = 1 << 20
	maxPositions = 1 << 16
)

// storeDEM loads the DEM store s (at path) was baked from — demPath, or the
// path the store names — with the store's window and the loading flags it
// recorded for those not given in fs, as the PVS cells the store's are
// (heightmap.Coarsen), and checks that its elevations are the store's.
// Errors name the command (cmd) and what to give.
func storeDEM(s *compress.Store, path, cmd, demPath string, dem *cli.DEMFlags, fs *pflag.FlagSet, stderr io.Writer) (*heightmap.Grid, error) {
	if demPath == "" { // the DEM the store was baked from, where it still is
		if _, err := os.Stat(s.Source); s.Source == "" || err != nil {
			return nil, cli.Usagef("%s needs --dem DEM: %s was baked from %q, which is not there", cmd, path, s.Source)
		}
		demPath = s.Source
	}
	dem.UseStore(s.Load)
	w := s.Window
	if w[0] < 0 || w[1] < 0 || !s.WindowFits() {
		return nil, fmt.Errorf("%s: its header's window %v does not match its %d×%d grid; the store is damaged or was not baked from a DEM file",
			path, w, s.Width, s.Height)
	}
	if err := fs.Set("window", fmt.Sprintf("%d,%d,%d,%d", w[0], w[1], w[2], w[3])); err != nil {
		return nil, err
	}
	g, err := dem.LoadDEM("frontierq", demPath, stderr)
	if err != nil {
		return nil, err
	}
	if k := s.Params.PVSCell; k > 1 {
		if g, err = heightmap.Coarsen(g, k); err != nil {
			return nil, fmt.Errorf("%s: %w", demPath, err)
		}
	}
	if g.Width != s.Width || g.Height != s.Height {
		return nil, fmt.Errorf("%s: window %v gives %d×%d cells, the store has %d×%d", demPath, w, g.Width, g.Height, s.Width, s.Height)
	}
	// The store keeps the elevations it was baked from: a DEM that
	// differs is not the store's, whatever the frontiers.
	for i := range g.Elev {
		nd := s.Nodata != nil && s.Nodata[i]
		if g.Elev[i] != s.Elev[i] || g.IsNodata(i) != nd {
			return nil, fmt.Errorf("%s does not match %s: cell (%d,%d) is %g m (nodata %t) in the DEM and %g m (nodata %t) in the store; give the DEM and loading flags it was baked with",
				demPath, path, i%g.Width, i/g.Width, g.Elev[i], g.IsNodata(i), s.Elev[i], nd)
		}
	}
	return g, nil
}
