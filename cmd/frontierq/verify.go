package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/audit"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
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
	seed := fs.Uint64("seed", 1, "random `seed`: it fixes the pairs, the sampled points and the positions, whatever the cores")
	asJSON := cli.JSONFlag(fs, "the counts")
	quiet := fs.BoolP("quiet", "q", false, "no progress lines")
	exact := fs.Bool("exact", false, "check against the exact line of sight (the segment on the bilinear surface) instead of the store's sector model")
	positions := fs.Int("positions", -1, "with --exact: check each cell pair at positions inside the two cells — the 16 corner combinations, this many random pairs and an ascent to the highest sight line — instead of their sample points, each sampled point against --sample points of the other side (0: sample points; default 16 for stores of the region model, else 0)")
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
		s, gr, err := bake.OpenGrower(pos[0])
		if err != nil {
			return err
		}
		g, err := storeDEM(s, pos[0], "verify", *demPath, &dem, fs, stderr)
		if err != nil {
			return err
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
		var progress func(done, total int)
		if !*quiet {
			start, last := time.Now(), time.Now()
			progress = func(done, total int) {
				if now := time.Now(); now.Sub(last) >= 10*time.Second {
					last = now
					fmt.Fprintf(stderr, "frontierq verify: %d of %d pairs after %s\n", done, total, now.Sub(start).Round(time.Second))
				}
			}
		}
		rep, err := audit.Frontiers(context.Background(), audit.FrontierAudit{Store: s, Grower: gr, Grid: g, Model: model, Grow: opt,
			Pairs: *pairs, Sample: *sample, Exact: *exact, Positions: *positions, Seed: *seed, Progress: progress})
		if errors.Is(err, audit.ErrFewPairs) {
			return fmt.Errorf("found only %s", strings.TrimPrefix(err.Error(), audit.ErrFewPairs.Error()+": "))
		}
		if err != nil {
			return err
		}
		if *exact && *positions > 0 {
			rep.Check = fmt.Sprintf("%s: %d position pairs", rep.Check, rep.PositionPairs)
		}
		if *asJSON {
			if err := cli.WriteJSON(stdout, rep); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(stdout, "pairs %d, frontier points %d, points checked %d (%s, both directions), violations %d\n",
				rep.Pairs, rep.FrontierPoints, rep.Checked, rep.Check, rep.Violations)
		}
		violations := rep.Violations
		if violations > 0 {
			return fmt.Errorf("%d violations of the frontier guarantee", violations)
		}
		return nil
	}
	return c
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
