package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/savings"
)

// savingsCmd measures what stores of one map save a networked game
// (internal/savings): the hidden player pairs each gives a frontier set,
// how long such a pair stays silent while walking, and the joint
// frontier's packets against all-to-all and a distance radius.
func savingsCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "savings STORE…", Short: "Measure what stores of one map (budgets, PVS cells, models) save in packets, on the same players",
		Args: cli.MinArgs("STORE")}
	c.Example = `  frontierq savings map-16MB.pvs map-64MB.pvs map-256MB.pvs --recommend 5
  frontierq savings map-*.pvs --players 128 --hz 30 --png savings.png --json`
	fs := c.Flags()
	var gf growFlags
	gf.register(fs)
	var dem cli.DEMFlags
	dem.Register(fs)
	demPath := fs.String("dem", "", "the `DEM` the stores were baked from, for stores of PVS cells coarser than its heightmap (default: the path each store names, with the loading flags it recorded)")
	cfg := savings.DefaultConfig()
	fs.IntVar(&cfg.Pairs, "pairs", cfg.Pairs, "player `pairs` hidden from each other by exact line of sight to draw (1 to 1000000)")
	fs.IntVar(&cfg.Players, "players", cfg.Players, "`players` walking the map in the traffic simulation (2 to 1024)")
	fs.Float64Var(&cfg.Seconds, "seconds", cfg.Seconds, "simulated `seconds` of the crowd")
	fs.Float64Var(&cfg.Hz, "hz", cfg.Hz, "ticks per second (1 to 120)")
	fs.Float64Var(&cfg.SpeedMS, "speed", 0, "walking speed in `m/s` (0: 1.4 on heightmaps finer than 5 m, 15 on coarser ones)")
	fs.Float64Var(&cfg.WalkSeconds, "walk", cfg.WalkSeconds, "time a found pair's walk up to this many `seconds`")
	fs.Float64Var(&cfg.AOIRadiusM, "aoi-radius", 0, "distance radius in `metres` the joint frontier is compared with (0: the distance holding 95% of the visible pairs, on the first store)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random `seed`: it fixes the pairs, the walks and the crowd, whatever the cores")
	recommend := fs.Float64("recommend", 0, "name the smallest store whose packets saved are within `PCT` percent of the largest store's (0: none)")
	pngPath := fs.String("png", "", "also draw the savings against store size to this `PNG` file")
	asJSON := cli.JSONFlag(fs, "the report")
	quiet := fs.BoolP("quiet", "q", false, "no progress lines")
	c.RunE = func(_ *cobra.Command, paths []string) error {
		switch {
		case !(*recommend >= 0 && *recommend < 100):
			return cli.Usagef("--recommend %g: want 0 to 100 percent", *recommend)
		case cfg.Pairs < 1 || cfg.Pairs > 1_000_000:
			return cli.Usagef("--pairs %d: want 1 to 1000000", cfg.Pairs)
		case cfg.Players < 2 || cfg.Players > 1024:
			return cli.Usagef("--players %d: want 2 to 1024", cfg.Players)
		case !(cfg.Hz >= 1 && cfg.Hz <= 120):
			return cli.Usagef("--hz %g: want 1 to 120 ticks per second", cfg.Hz)
		case !(cfg.Seconds > 0) || cfg.Seconds*cfg.Hz > 1e6 || !(cfg.WalkSeconds > 0) || cfg.WalkSeconds*cfg.Hz > 1e6:
			return cli.Usagef("--seconds %g, --walk %g at --hz %g: want > 0 and at most 10⁶ ticks each", cfg.Seconds, cfg.WalkSeconds, cfg.Hz)
		case !(cfg.SpeedMS >= 0 && cfg.SpeedMS <= 1000) || !(cfg.AOIRadiusM >= 0 && cfg.AOIRadiusM <= 4e7):
			return cli.Usagef("--speed %g, --aoi-radius %g: want 0 to 1000 m/s and 0 to 40000000 m", cfg.SpeedMS, cfg.AOIRadiusM)
		}
		g, err := gf.options()
		if err != nil {
			return err
		}
		cfg.Grow = g
		if *pngPath != "" {
			if err := atomicfile.CheckTarget(*pngPath); err != nil {
				return err
			}
		}
		ins := make([]savings.Input, 0, len(paths))
		defer func() {
			for _, in := range ins {
				in.Store.Close()
			}
		}()
		dems := map[int]*heightmap.Grid{} // by PVS cell
		for _, p := range paths {
			in, err := savings.Open(p, nil)
			if err != nil {
				return err
			}
			ins = append(ins, in)
			if err := savings.SameMap(ins[0], in); err != nil {
				return err
			}
			if k := in.Store.Params.PVSCell; k > 1 {
				if dems[k] == nil {
					if dems[k], err = storeDEM(in.Store, p, "savings", *demPath, &dem, fs, stderr); err != nil {
						return err
					}
				}
				ins[len(ins)-1].DEM = dems[k]
			}
		}
		if !*quiet {
			start := time.Now()
			next := start.Add(10 * time.Second)
			cfg.Progress = func(store, stage string, done, total int) {
				if now := time.Now(); now.After(next) {
					next = now.Add(10 * time.Second)
					at := ""
					if store != "" {
						at = store + ": "
					}
					fmt.Fprintf(stderr, "frontierq savings: %s%s %d of %d after %s\n", at, stage, done, total, now.Sub(start).Round(time.Second))
				}
			}
		}
		rep, err := savings.Measure(ins, cfg)
		if err != nil {
			return err
		}
		if *recommend > 0 {
			rep.Recommend(*recommend)
		}
		if *pngPath != "" {
			if err := atomicfile.Write(*pngPath, func(w io.Writer) error { return savings.WritePNG(w, rep) }); err != nil {
				return err
			}
		}
		if *asJSON {
			return cli.WriteJSON(stdout, rep)
		}
		return savings.WriteTable(stdout, rep)
	}
	return c
}
