package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/internal/savings"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// bakeCmd is `pvsbake bake`, which bakes a DEM into one store per budget (§3.1–3.4).
func bakeCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "bake DEM -o OUT (--budget B[,B…] | --nodes N[,N…])", Short: "Bake every cell's PVS into a store capped to a memory budget", Args: cli.Args("DEM")}
	c.Example = `  pvsbake bake data/mount-washington.tif -o mw.pvs --budget 10MB
  pvsbake bake terrain.raw --cell-size 3.90625 --height-range 0,1800 --max-distance 2000 \
      --encoding coded --budget 1GiB -o terrain.pvs
  pvsbake bake big.tif -o big --budget 0.5GiB,1GiB --resume big.tiles`
	fs := c.Flags()
	f := &bakeFlags{fs: fs}
	f.dem.Register(fs)
	f.vis.Register(fs)
	f.out = fs.StringP("output", "o", "", "output store `path`; with several budgets, a prefix: PREFIX-<budget>.pvs; with --shard, the partial file")
	f.budgets = fs.String("budget", "", "memory `budget` of the store, e.g. 100MB, 0.5GiB, or a list 0.1GB,0.25GB,0.5GB,1GB")
	f.nodes = fs.String("nodes", "", "cap every PVS at `N` nodes instead (the thesis's Table 4.5), or a list")
	f.policy = fs.String("cap-policy", "deepest", "which leaf groups the cap collapses first (`policy`): deepest (the thesis's §3.4) or min-loss (those losing the fewest hidden cells)")
	f.encoding = fs.String("encoding", "flat", "store `encoding`: flat (every PVS as 2-bit codes, read in place) or coded (entropy-coded, each PVS given its parent quad's, decoded when read: about a fifth of the memory; each budget filled by one price for all PVSs)")
	f.workers = fs.IntP("workers", "j", 0, "`goroutines` computing viewsheds (0: one per core)")
	f.quiet = fs.BoolP("quiet", "q", false, "no progress bar or progress lines")
	f.savings = fs.Bool("savings", false, "after the bake, measure what each store saves in packets on the same players, as frontierq savings does with its defaults (not with --shard)")
	f.yes = fs.Bool("yes", false, "bake even when projected to take over an hour (without it such a bake stops, listing --pvs-cell values and a --max-distance that bake sooner) or to need more memory than is available")
	f.every = fs.Duration("progress", 30*time.Second, "without a terminal, print a progress line at this `interval` (0: none)")
	fs.DurationVar(f.every, "progress-every", 30*time.Second, "")
	_ = fs.MarkDeprecated("progress-every", "use --progress")
	f.asJSON = cli.JSONFlag(fs, "what was written")
	f.shardFlag = fs.String("shard", "", "bake only shard `i/N` (0 ≤ i < N) into the partial file -o; 'pvsbake join' writes the stores from all N")
	f.totalVS = fs.String("total-viewshed", "", "also write each point's total viewshed, from its uncapped PVS, as a two-band Float64 GeoTIFF at `path`: band 1 the visible area in m², band 2 the visible cells (not with --shard or --resume)")
	f.kernels = fs.String("kernels", cmp.Or(os.Getenv("FRONTIERSETS_KERNELS"), "auto"), "block engine `kernels`: auto (the fastest this build and CPU run), avx512, avx2 or scalar; all bake the same bytes (default from FRONTIERSETS_KERNELS)")
	f.engine.Register(fs, "record the heightmap's place in a game engine's world, so that queries take world positions")
	f.pvsCell = fs.Float64("pvs-cell", 0, "side of a PVS cell in `metres`, a whole multiple of the heightmap's square cells (0: the heightmap's cell); needs --los region: regions, quads, frontier sets and the store live on the grid of PVS cells, visibility is judged on the heightmap's surface")
	f.resume = fs.String("resume", "", "bake in tiles, keeping in `DIR` each tile finished (flat stores) or a checkpoint at each tile (coded stores); after an interruption (even kill -9) the same command continues from there and writes the same stores; DIR is emptied once they are written")
	c.RunE = func(_ *cobra.Command, pos []string) error { return f.run(pos[0], stdout, stderr) }
	return c
}

// bakeFlags are pvsbake bake's flags, as parsed.
type bakeFlags struct {
	fs                                                        *pflag.FlagSet
	dem                                                       cli.DEMFlags
	vis                                                       cli.VisFlags
	engine                                                    cli.EngineFlags
	out, budgets, nodes, policy, encoding, shardFlag, totalVS *string
	kernels, resume                                           *string
	workers                                                   *int
	quiet, asJSON, yes, savings                               *bool
	every                                                     *time.Duration
	pvsCell                                                   *float64
}

// run bakes the DEM at demPath: the flags checked, the DEM loaded, the
// stores baked with progress on stderr, what was written reported on
// stdout.
func (f *bakeFlags) run(demPath string, stdout, stderr io.Writer) error {
	p, shard, err := f.check(demPath)
	if err != nil {
		return err
	}
	nw := *f.workers
	if nw == 0 {
		nw = runtime.GOMAXPROCS(0)
	}
	g, err := f.load(demPath, &p, nw, stderr)
	if err != nil {
		return err
	}
	geo, err := quadpvs.NewGeometry(g.Width, g.Height)
	if err != nil {
		return err
	}
	outputs, err := bakeOutputs(*f.out, *f.budgets, *f.nodes, geo.QuadCount(), *f.policy == "min-loss", *f.encoding == "coded")
	if err != nil {
		return err
	}
	share := 1.0 // of the points this process bakes
	var plan bake.Plan
	if shard.Count > 0 {
		if plan, err = bake.PlanShards(geo, g.Nodata, shard.Count); err != nil {
			return cli.Usagef("--shard %s: %v", *f.shardFlag, err)
		}
		share = float64(plan.Cells[shard.Index+1]-plan.Cells[shard.Index]) / float64(g.Width*g.Height)
	}
	if err := checkDisk(outputs, *f.out, *f.resume, share, g.Width*g.Height, geo.QuadCount(), shard.Count > 0, freeBytes); err != nil {
		return err
	}
	if shard.Count == 0 {
		// What a killed bake of other budgets left beside these.
		atomicfile.SweepStale(*f.out+"-", ".pvs") // outPath's names
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	total := g.Width * g.Height
	cfg := bake.Config{DEM: g, Params: p, Workers: nw, Kernels: *f.kernels, Outputs: outputs}
	if *f.totalVS != "" {
		cfg.TotalViewshed = make([]uint32, g.Width*g.Height)
	}
	if shard.Count > 0 {
		shard.Path = *f.out
		cfg.Shard = shard
		total = plan.Cells[shard.Index+1] - plan.Cells[shard.Index]
	}
	if err := bake.CheckHeaders(cfg); err != nil {
		return err
	}
	// The calibration stops after calibrationTime with the points it has
	// timed, so that the projection comes within seconds of the start
	// however costly a point is (a 4097² map at 1 m with a 1.5 km view
	// took 100 s to time its 10,672 points).
	pr, err := bake.Project(ctx, cfg, calibrationPoints(total), calibrationTime)
	rss, hwm := cli.ResidentMemory()
	peak := bake.PeakMemory(cfg, rss, hwm)
	if err == nil && !*f.quiet {
		fmt.Fprintf(stderr, "pvsbake: %d points%s, %s model v%d, about %s per point on one core (timed on %d, %s kernels): projected %s and %s of memory at the peak with %d workers\n",
			total, pointsNote(g, p), p.LOS, p.ModelVersion(), pr.PerPoint.Round(time.Microsecond), pr.Samples, pr.Kernels, formatDuration(time.Duration(share*float64(pr.Wall))),
			compress.FormatBytes(peak), nw)
	} else if err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if wall := time.Duration(share * float64(pr.Wall)); err == nil && wall > longBake && !*f.yes {
		return f.tooLong(ctx, cfg, wall, nw, stderr)
	}
	// What the system can still give against what the bake will add to
	// what it holds now (the DEM, the model).
	if avail := cli.AvailableMemory(); avail > 0 && peak-rss > avail && !*f.yes {
		return cli.Usagef("projected to need %s more memory (a peak of %s) and %s is available: a coarser --pvs-cell, a shorter --max-distance or a smaller --window bakes in less; --yes bakes it as asked",
			compress.FormatBytes(peak-rss), compress.FormatBytes(peak), compress.FormatBytes(avail))
	}
	bar, progress, start := f.progress(total, stderr)
	cfg.Progress = progress
	var stats []compress.Stats
	tiles := bake.TileCount(geo, g.Width*g.Height-g.NodataCount)
	if *f.resume != "" {
		if tiles == 1 && !*f.quiet {
			fmt.Fprintf(stderr, "pvsbake: %s\n", singleTile(g.Width*g.Height-g.NodataCount))
		}
		stats, err = bake.Resume(ctx, cfg, *f.resume)
	} else {
		stats, err = bake.Run(ctx, cfg)
	}
	if bar != nil {
		bar.Finish()
	}
	if ctx.Err() != nil {
		if *f.resume != "" && tiles == 1 {
			return fmt.Errorf("interrupted: nothing was kept in %s (%s); the same command starts again", *f.resume, singleTile(g.Width*g.Height-g.NodataCount))
		}
		if *f.resume != "" {
			return fmt.Errorf("interrupted: the same command continues from %s", *f.resume)
		}
		return errInterrupted
	}
	if err != nil {
		return err
	}
	el := time.Since(start)
	if *f.totalVS != "" {
		if err := writeTotalViewshed(*f.totalVS, g, cfg.TotalViewshed); err != nil {
			return err
		}
	}
	var sv *savings.Report
	if *f.savings {
		if sv, err = f.measureSavings(outputs, g, p, stderr); err != nil {
			if rerr := f.report(stdout, outputs, stats, shard, plan, total, el, nw, nil); rerr != nil {
				return rerr
			}
			return fmt.Errorf("the stores are written; measuring what they save: %w", err)
		}
	}
	return f.report(stdout, outputs, stats, shard, plan, total, el, nw, sv)
}

// measureSavings measures what the stores written save (internal/savings,
// as frontierq savings with its defaults), on g, the grid they were baked
// from.
func (f *bakeFlags) measureSavings(outputs []bake.Output, g *heightmap.Grid, p horizon.Params, stderr io.Writer) (*savings.Report, error) {
	var ins []savings.Input
	defer func() {
		for _, in := range ins {
			in.Store.Close()
		}
	}()
	var dem *heightmap.Grid // the PVS cells' grid, whose heightmap the measurement reads
	if p.PVSCell > 1 {
		dem = g
	}
	for _, o := range outputs {
		in, err := savings.Open(o.Path, dem)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	cfg := savings.DefaultConfig()
	if !*f.quiet {
		fmt.Fprintf(stderr, "pvsbake: measuring what the %d stores save (%d player pairs, %d players for %g s at %g Hz)\n", len(ins), cfg.Pairs, cfg.Players, cfg.Seconds, cfg.Hz)
	}
	return savings.Measure(ins, cfg)
}

// check checks the flags before the DEM is read (and the outputs against
// it), returning the visibility parameters and the shard to bake.
func (f *bakeFlags) check(demPath string) (horizon.Params, bake.Shard, error) {
	if *f.out == "" || (*f.budgets == "") == (*f.nodes == "") {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("bake needs -o OUT and either --budget or --nodes")
	}
	if *f.workers < 0 || *f.workers > maxWorkers {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--workers %d: want 1 to %d (0: one per core)", *f.workers, maxWorkers)
	}
	if *f.every < 0 {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--progress %s: want a duration ≥ 0", *f.every)
	}
	if *f.policy != "deepest" && *f.policy != "min-loss" {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--cap-policy %q: want deepest or min-loss", *f.policy)
	}
	if *f.encoding != "flat" && *f.encoding != "coded" {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--encoding %q: want flat or coded", *f.encoding)
	}
	if err := horizon.CheckKernels(*f.kernels); err != nil {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--kernels %s", strings.TrimPrefix(err.Error(), horizon.ErrKernels.Error()+": "))
	}
	if *f.encoding == "coded" && (*f.budgets == "" || *f.shardFlag != "") {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--encoding coded needs --budget (not --nodes) and no --shard: join a sharded bake's flat partials, then pvsbake code")
	}
	if *f.savings && *f.shardFlag != "" {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--savings measures whole stores: drop --shard, and run frontierq savings on the stores pvsbake join writes")
	}
	if *f.resume != "" && *f.shardFlag != "" {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--resume bakes in its own tiles: drop --shard")
	}
	if *f.totalVS != "" && (*f.resume != "" || *f.shardFlag != "") {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--total-viewshed needs a whole bake in one run: drop --resume and --shard")
	}
	if *f.budgets != "" { // checked again with the grid's quads; here before the DEM is read
		if _, err := compress.ParseBytesList(*f.budgets); err != nil {
			return horizon.Params{}, bake.Shard{}, cli.Usagef("--budget: %v", err)
		}
	}
	shard, err := parseShard(*f.shardFlag)
	if err != nil {
		return horizon.Params{}, bake.Shard{}, err
	}
	p, err := f.vis.Checked() // before any heavy work
	if err != nil {
		return horizon.Params{}, bake.Shard{}, err
	}
	if f.fs.Changed("pvs-cell") && (!(*f.pvsCell >= 0) || math.IsInf(*f.pvsCell, 0) || (*f.pvsCell > 0 && p.LOS != horizon.LOSRegion)) {
		return horizon.Params{}, bake.Shard{}, cli.Usagef("--pvs-cell %g: want a positive number of metres, a whole multiple of the heightmap's cell, with --los region", *f.pvsCell)
	}
	if err := checkOutput(*f.out); err != nil {
		return horizon.Params{}, bake.Shard{}, err
	}
	outs := []cli.File{{Flag: "-o", Path: *f.out}}
	if labels := strings.Split(*f.budgets+*f.nodes, ","); shard.Count == 0 && len(labels) > 1 {
		outs = outs[:0]
		for _, l := range labels {
			if *f.nodes != "" {
				l = "n" + strings.TrimSpace(l)
			}
			outs = append(outs, cli.File{Flag: "-o", Path: outPath(*f.out, strings.TrimSpace(l), len(labels))})
		}
	}
	if *f.totalVS != "" {
		outs = append(outs, cli.File{Flag: "--total-viewshed", Path: *f.totalVS})
	}
	if *f.resume != "" { // a folder the bake fills: no store may take its name
		outs = append(outs, cli.File{Flag: "--resume", Path: *f.resume})
	}
	if err := cli.CheckOutputs([]cli.File{{Flag: "DEM", Path: demPath}}, outs); err != nil {
		return horizon.Params{}, bake.Shard{}, err
	}
	return p, shard, nil
}

// load reads the DEM, guarding memory for a bake of the flags' outputs on
// nw workers, places it in the engine's world and coarsens it to the PVS
// cells (setting p.PVSCell).
func (f *bakeFlags) load(demPath string, p *horizon.Params, nw int, stderr io.Writer) (*heightmap.Grid, error) {
	nOut := len(strings.Split(*f.budgets+*f.nodes, ","))
	f.dem.Need = func(w, h int, dx, dy float64) int64 {
		if k, err := heightmap.PVSCellFactor(*f.pvsCell, dx, dy); *f.pvsCell > 0 && err == nil && k > 1 {
			// The bake's on the PVS cells, and the heightmap's tables:
			// its elevations, their tops and the minima's rows.
			q := *p
			q.PVSCell = k
			return bake.Estimate((w+k-1)/k, (h+k-1)/k, q, dx*float64(k), dy*float64(k), nw, nOut) + 16*int64(w)*int64(h)
		}
		return bake.Estimate(w, h, *p, dx, dy, nw, nOut)
	}
	if *f.pvsCell > 0 { // refused before any cell is read
		f.dem.Precheck = func(g *heightmap.Grid) error {
			k, err := heightmap.PVSCellFactor(*f.pvsCell, g.Dx, g.Dy)
			if err != nil {
				return cli.Usagef("--pvs-cell: %v", strings.TrimPrefix(err.Error(), heightmap.ErrPVSCell.Error()+": "))
			}
			if w, h := horizon.PVSGrid(g.Width, g.Height, k); w < 2 || h < 2 {
				return cli.Usagef("--pvs-cell %g: PVS cells of %d heightmap cells leave %d×%d of them on the %d×%d heightmap; want at least 2×2", *f.pvsCell, k, w, h, g.Width, g.Height)
			}
			return nil
		}
	}
	if err := f.engine.Checked(); err != nil {
		return nil, err
	}
	g, err := f.dem.LoadDEM("pvsbake", demPath, stderr)
	if err != nil {
		return nil, err
	}
	if err := f.engine.Place(g); err != nil {
		return nil, err
	}
	if *f.pvsCell > 0 {
		k, err := heightmap.PVSCellFactor(*f.pvsCell, g.Dx, g.Dy)
		if err != nil {
			return nil, cli.Usagef("--pvs-cell: %v", strings.TrimPrefix(err.Error(), heightmap.ErrPVSCell.Error()+": "))
		}
		if g, err = heightmap.Coarsen(g, k); err != nil {
			return nil, cli.Usagef("--pvs-cell %g: %v", *f.pvsCell, strings.TrimPrefix(err.Error(), heightmap.ErrPVSCell.Error()+": "))
		}
		p.PVSCell = k
	}
	if g.Engine != nil && g.Engine.Check() != nil {
		// The origin moved to the window's first cell (and the PVS
		// cells' centre) left what a store's readers accept.
		return nil, cli.Usagef("--engine-origin %s: the grid's first cell lands at %g,%g in the world: want positions within ±1e12 %s units", f.engine.Origin(), g.Engine.Origin[0], g.Engine.Origin[1], f.engine.Engine())
	}
	return g, nil
}

// progress returns the bake's progress callback — a bar on a terminal,
// else a line every --progress — with the bar (nil without one) and the
// time the bake starts.
func (f *bakeFlags) progress(total int, stderr io.Writer) (*progressbar.ProgressBar, func(done, total int), time.Time) {
	var bar *progressbar.ProgressBar
	if tf, ok := stderr.(*os.File); ok && !*f.quiet && term.IsTerminal(int(tf.Fd())) {
		bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("baking"),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("points"),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	start := time.Now()
	lines := bar == nil && !*f.quiet && *f.every > 0
	next := start.Add(*f.every)
	base := -1 // the points a resumed bake found done: the rate counts this run's
	return bar, func(done, total int) {
		if bar != nil {
			bar.Set(done)
		}
		if base < 0 {
			base = done
		}
		if lines && done < total && done&255 == 0 {
			if now := time.Now(); now.After(next) && done > base {
				next = now.Add(*f.every)
				el := now.Sub(start)
				left := time.Duration(float64(el) * float64(total-done) / float64(done-base))
				fmt.Fprintf(stderr, "pvsbake: %.1f%% (%d of %d points) after %s, about %s left\n",
					100*float64(done)/float64(total), done, total, formatDuration(el), formatDuration(left))
			}
		}
	}, start
}

// report writes what the bake wrote: JSON with --json, else one line per
// store (or the partial file) and the bake's time.
func (f *bakeFlags) report(stdout io.Writer, outputs []bake.Output, stats []compress.Stats, shard bake.Shard, plan bake.Plan, total int, el time.Duration, nw int, sv *savings.Report) error {
	if *f.asJSON {
		rep := bakeJSON{Points: total, Seconds: round(el.Seconds(), 3), Workers: nw, TotalViewshed: *f.totalVS, Savings: sv}
		if shard.Count > 0 {
			i := shard.Index
			rep.Partial = &partialJSON{Path: *f.out, Shard: i, Shards: shard.Count, PointsWithData: plan.Points[i], FirstQuad: plan.First[i], EndQuad: plan.First[i+1], Level: plan.Level}
		}
		for i, o := range outputs {
			if shard.Count == 0 {
				rep.Stores = append(rep.Stores, storeJSON{Path: o.Path, Stats: stats[i]})
			}
		}
		return cli.WriteJSON(stdout, rep)
	}
	if shard.Count > 0 {
		i := shard.Index
		fmt.Fprintf(stdout, "wrote %s: shard %d/%d, %d points (%d with data), quads %d–%d of the %d of level %d, in %.1f s (%d workers)\n",
			*f.out, i, shard.Count, total, plan.Points[i], plan.First[i], plan.First[i+1], plan.Quads, plan.Level, el.Seconds(), nw)
		return nil
	}
	for i, o := range outputs {
		st := stats[i]
		fmt.Fprintf(stdout, "wrote %s: %d points, %d quads, %d nodes (max %d per PVS), %s in memory, hidden kept %.1f%%\n",
			o.Path, total, st.Quads, st.NodesTotal, st.NodesMax, compress.FormatBytes(st.MemoryBytes), 100*st.HiddenKept)
	}
	if *f.totalVS != "" {
		fmt.Fprintf(stdout, "wrote %s: the total viewshed of %d points (band 1 visible area in m², band 2 visible cells)\n", *f.totalVS, total)
	}
	fmt.Fprintf(stdout, "baked %d points in %.1f s (%.0f points/s, %d workers)\n", total, el.Seconds(), float64(total)/el.Seconds(), nw)
	if sv != nil {
		return savings.WriteTable(stdout, sv)
	}
	return nil
}

// writeTotalViewshed writes counts (visible cells per point, row-major) as
// bake --total-viewshed's GeoTIFF: band 1 the area in m² (cells × the
// grid's cell area), band 2 the cells.
func writeTotalViewshed(path string, g *heightmap.Grid, counts []uint32) error {
	area, cells := make([]float64, len(counts)), make([]float64, len(counts))
	for i, c := range counts {
		cells[i] = float64(c)
		area[i] = float64(c) * g.Dx * g.Dy
	}
	return gdal.WriteBands(path, g.Georef, g.Width, g.Height, [][]float64{area, cells}, []string{"visible area (m²)", "visible cells"})
}

// bakeJSON is bake --json's report: the stores written (or the shard's
// partial file), the points baked, the wall time.
type bakeJSON struct {
	Stores        []storeJSON  `json:"stores,omitempty"`
	Partial       *partialJSON `json:"partial,omitempty"`
	TotalViewshed string       `json:"total_viewshed,omitempty"`
	Points        int          `json:"points"`
	Seconds       float64      `json:"seconds"`
	Workers       int          `json:"workers"`
	// Savings is --savings's measurement (internal/savings).
	Savings *savings.Report `json:"savings,omitempty"`
}

// storeJSON is one written store and its statistics.
type storeJSON struct {
	Path string `json:"path"`
	compress.Stats
}

// partialJSON is a shard's partial file: which quads of which level it holds.
type partialJSON struct {
	Path           string `json:"path"`
	Shard          int    `json:"shard"`
	Shards         int    `json:"shards"`
	PointsWithData int    `json:"points_with_data"`
	FirstQuad      int    `json:"first_quad"`
	EndQuad        int    `json:"end_quad"` // one past the last
	Level          int    `json:"level"`
}

// maxWorkers bounds --workers.
const maxWorkers = 1024

// errInterrupted is what an interrupted bake or join reports: Run and
// Join remove their temporary files before returning.
var errInterrupted = errors.New("interrupted: nothing written (temporary files removed)")

// calibrationPoints is how many of a bake's points the projection times:
// one in 256 (0.4% of the bake's work on top of it), at least four
// observer tiles (about a second on a 1025² grid at S = 1024) and at most
// 256 (65,536 points from 4097² on). On the 18 m map's 4097² window at
// 2 km, four tiles projected the bake 17% short and 255 tiles 7% short;
// one point in 1024 (16 and 17 tiles) projected its 1025² and 2049²
// windows 16–18% long on a 16-core machine.
// longBake is the projected time above which a bake stops, listing
// coarser PVS cells and shorter views with their projections, unless
// given --yes.
const longBake = time.Hour

// tooLong lists, for a bake projected to take wall, the --pvs-cell values
// (region model) and the --max-distance that bake sooner, each timed by
// its own short calibration, and returns a usage error asking for one of
// them or --yes.
func (f *bakeFlags) tooLong(ctx context.Context, cfg bake.Config, wall time.Duration, nw int, stderr io.Writer) error {
	g, p := cfg.DEM, cfg.Params
	base, k0 := g, max(p.PVSCell, 1)
	if g.Heightmap != nil {
		base = g.Heightmap
	}
	project := func(dem *heightmap.Grid, q horizon.Params) (time.Duration, bool) {
		c := cfg
		c.DEM, c.Params, c.TotalViewshed = dem, q, nil
		pr, err := bake.Project(ctx, c, calibrationPoints(dem.Width*dem.Height), calibrationTime)
		return pr.Wall, err == nil
	}
	fmt.Fprintf(stderr, "pvsbake: projected %s, over an hour; these bake sooner (each timed as this one was):\n", formatDuration(wall))
	if p.LOS == horizon.LOSRegion && cfg.Shard.Count == 0 {
		for _, m := range []int{2, 4, 8, 16} {
			k := k0 * m
			if base.Width/k < 2 || base.Height/k < 2 || ctx.Err() != nil {
				break
			}
			dem, err := heightmap.Coarsen(base, k)
			if err != nil {
				break
			}
			q := p
			q.PVSCell = k
			if w, ok := project(dem, q); ok {
				fmt.Fprintf(stderr, "pvsbake:   --pvs-cell %g (%d×%d PVS cells): projected %s with %d workers\n", float64(k)*base.Dx, dem.Width, dem.Height, formatDuration(w), nw)
				if w < 10*time.Minute {
					break
				}
			}
		}
	}
	if d := p.MaxDistance; (d == 0 || d > 500) && ctx.Err() == nil {
		q := p
		q.MaxDistance = 2000
		if d > 0 {
			q.MaxDistance = d / 2
		}
		if w, ok := project(g, q); ok {
			fmt.Fprintf(stderr, "pvsbake:   --max-distance %g: projected %s with %d workers\n", q.MaxDistance, formatDuration(w), nw)
		}
	}
	return cli.Usagef("projected %s: give one of the flags above, or --yes to bake it as asked", formatDuration(wall))
}

// pointsNote says what the points are — PVS cells of how many metres,
// where coarser than the heightmap's — and how far the view reaches, in
// cells: ", PVS cells of 8 m, a view of 250 cells".
func pointsNote(g *heightmap.Grid, p horizon.Params) string {
	var b strings.Builder
	if p.PVSCell > 1 {
		fmt.Fprintf(&b, ", PVS cells of %g m", g.Dx)
	}
	if p.MaxDistance > 0 {
		fmt.Fprintf(&b, ", a view of %.0f cells", p.MaxDistance/min(g.Dx, g.Dy))
	}
	return b.String()
}

// calibrationTime bounds the projection's calibration: its line comes
// within a few seconds of the start (loading aside).
const calibrationTime = 3 * time.Second

// calibrationPoints is how many of a bake's points its projection asks to
// time: a sixteenth, from 4 to 256 tiles; calibrationTime cuts it short.
// Five tiles of a 4097² 1 m map at 8 m PVS cells and 2 km projected 1.0 to
// 1.6 ms a point in four runs; 78 tiles, 0.92 ms; the bake took 1.1.
func calibrationPoints(points int) int {
	tile := horizon.TileSide * horizon.TileSide
	return min(max(points/16, 4*tile), 256*tile)
}

// formatDuration rounds d for a person: seconds below ten minutes, minutes
// below ten hours, hours beyond.
func formatDuration(d time.Duration) string {
	switch {
	case d < 10*time.Minute:
		return d.Round(time.Second).String()
	case d < 10*time.Hour:
		return d.Round(time.Minute).String()
	}
	return fmt.Sprintf("%.0fh", d.Hours())
}

// bakeOutputs turns -o and the budget or node lists into outputs. With one
// value the store is OUT itself; with several, OUT-<value>.pvs each.
func bakeOutputs(out, budgets, nodes string, quads int, minLoss, coded bool) ([]bake.Output, error) {
	var outs []bake.Output
	if budgets != "" {
		parts := strings.Split(budgets, ",")
		for _, s := range parts {
			b, err := compress.ParseBytes(s)
			if err != nil {
				return nil, cli.Usagef("--budget: %v", err)
			}
			c, err := compress.CapForBudget(b, quads)
			if err != nil && !coded {
				return nil, err
			}
			c.MinLoss = minLoss
			if coded {
				if least := compress.CodedLeast(b, quads); b < least {
					return nil, fmt.Errorf("%w: %s coded for %d quads; the minimum is %s (a block index, the coder's tables, the cache)", compress.ErrBudget, compress.FormatBytes(b), quads, compress.FormatBytes(least))
				}
				c = compress.Cap{Codes: compress.CodedCeiling(b, quads), MinLoss: true}
			}
			label := strings.TrimSpace(s)
			if !compress.ValidLabel(label) {
				return nil, cli.Usagef("--budget %q: write each budget without spaces, e.g. 0.5GiB (it names the store file)", s)
			}
			outs = append(outs, bake.Output{Path: outPath(out, label, len(parts)), Label: label, Budget: b, Cap: c, Coded: coded})
		}
		return outs, nil
	}
	parts := strings.Split(nodes, ",")
	for _, s := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, cli.Usagef("--nodes %q: want whole numbers ≥ 1", s)
		}
		label := "n" + strconv.Itoa(n)
		outs = append(outs, bake.Output{Path: outPath(out, label, len(parts)), Label: label, Cap: compress.Cap{Nodes: n, MinLoss: minLoss}})
	}
	return outs, nil
}

// storeFileBytes bounds the file of a store of output o for a grid of
// cells cells and quads quads: its budget (a store's file holds what its
// memory does, or less), or for a node cap every tree at the cap in the
// flat encoding; plus the grid (elevations, nodata flags) and 64 KiB of
// headers.
func storeFileBytes(o bake.Output, cells, quads int) int64 {
	n := o.Budget
	if n <= 0 {
		n = int64(quads) * (compress.QuadOverhead + int64(quadtree.BytesFor(o.Cap.Nodes)))
	}
	return n + 4*int64(cells) + int64(cells)/8 + 64<<10
}

// singleTile says why --resume keeps nothing of a bake of one tile.
func singleTile(points int) string {
	return fmt.Sprintf("--resume keeps finished tiles of about %d points, and these %d points make one: an interruption keeps nothing", bake.PointsPerTile(), points)
}

// checkDisk refuses a bake whose files would not fit on their disks
// (free: the bytes free for the folder path is in): the stores, or a
// shard's share of them in its partial file (shard; share of the points),
// and with a --resume folder the tiles or coded stores kept there until
// the end as much again; beside each store (in the --resume folder for a
// resumable coded one) its index spill until the commit (indexSpillBytes).
// Folders on one file system count together.
func checkDisk(outputs []bake.Output, out, resume string, share float64, cells, quads int, shard bool, free func(path string) (int64, uint64, error)) error {
	type need struct {
		bytes int64
		dirs  []string
	}
	needs := map[uint64]*need{}
	avail := map[uint64]int64{}
	add := func(dir string, n int64) {
		f, dev, err := free(dir)
		if err != nil {
			return // unknown: no guard
		}
		nd := needs[dev]
		if nd == nil {
			nd = &need{}
			needs[dev] = nd
		}
		nd.bytes += n
		if !slices.Contains(nd.dirs, dir) {
			nd.dirs = append(nd.dirs, dir)
		}
		avail[dev] = f
	}
	var total int64
	for _, o := range outputs {
		n := storeFileBytes(o, cells, quads)
		if shard {
			add(filepath.Dir(out), int64(share*float64(n))+64<<10)
			continue
		}
		total += n
		add(filepath.Dir(o.Path), n)
		if spill := indexSpillBytes(o, quads); resume != "" && o.Coded {
			resumeDir(resume, func(dir string) { add(dir, spill) })
		} else {
			add(filepath.Dir(o.Path), spill)
		}
	}
	if resume != "" {
		resumeDir(resume, func(dir string) { add(dir, total) })
	}
	for dev, nd := range needs {
		if nd.bytes > avail[dev] {
			return fmt.Errorf("the bake's files need about %s of disk in %s and %s is free there: free some space, write them elsewhere or bake a smaller budget",
				compress.FormatBytes(nd.bytes), strings.Join(nd.dirs, " and "), compress.FormatBytes(avail[dev]))
		}
	}
	return nil
}

// resumeDir calls add with the --resume folder, or the folder it will be
// made in when it does not exist yet.
func resumeDir(resume string, add func(dir string)) {
	dir := resume
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Dir(filepath.Clean(resume))
	}
	add(dir)
}

// indexSpillBytes is the size of the file in which a store's writer keeps
// its per-quad index until the commit (internal/bake's indexSpill): 8
// bytes a quad for a coded store, 16 for a flat one.
func indexSpillBytes(o bake.Output, quads int) int64 {
	if o.Coded {
		return 8 * int64(quads)
	}
	return 16 * int64(quads)
}

// parseShard parses --shard i/N ("" means a whole bake).
func parseShard(s string) (bake.Shard, error) {
	if s == "" {
		return bake.Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || n > bake.MaxShards || i < 0 || i >= n {
		return bake.Shard{}, cli.Usagef("--shard %q: want i/N with 0 ≤ i < N ≤ %d, e.g. 3/8", s, bake.MaxShards)
	}
	return bake.Shard{Index: i, Count: n}, nil
}

// checkOutput fails early, before the DEM is read, when -o cannot be
// written: a directory, or a folder that does not exist or is not
// writable. With several budgets out is a prefix in that folder.
func checkOutput(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return cli.Usagef("-o %s is a directory; give a file name (with several budgets, a prefix: -o %s gives %s-<budget>.pvs)",
			out, filepath.Join(out, "store"), filepath.Join(out, "store"))
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".pvsbake-check*")
	if err != nil {
		return fmt.Errorf("-o %s: cannot write there: %w", out, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// outPath names output label among n outputs of prefix out.
func outPath(out, label string, n int) string {
	if n == 1 {
		return out
	}
	return fmt.Sprintf("%s-%s.pvs", out, label)
}
