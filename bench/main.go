// Command bench reproduces the thesis's experiment (chapter 4) on the two
// real terrains: for every memory limit and both budget accountings, random
// mutually invisible pairs are grown hierarchically and point by point, with
// lossless and lossy merges; frontier set sizes and running times are
// recorded per query, a sample of frontier sets is audited against
// uncompressed per-point PVSs recomputed from the DEM, and the results are
// written under bench/results/<date>/ (see README.md there). `make bench`
// runs it with the thesis's R = 10,500 pairs; --pairs makes quick runs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/quadpvs"

	"golang.org/x/sync/errgroup"
)

func main() {
	os.Exit(cli.Report("bench", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// terrain is one benchmark terrain.
type terrain struct {
	Name   string // "open" or "urban"
	Path   string
	Window heightmap.Window
}

// config is the benchmark's parameters.
type config struct {
	terrains    []terrain
	limitsGiB   []float64
	pairs       int
	slowPairs   int // pairs for simple growing with lossless merges
	firstPair   int // index of the first timed pair in the seed's sequence
	cases       []methodMerge
	accountings []string // of knownAccountings
	maxSteps    int      // grow.Options.MaxSteps of every query (0: none)
	reuse       bool
	jobs        int // terrains benchmarked at once, one thread each
	audit       int // frontier sets audited per case
	auditSample int // points per side whose PVS is recomputed
	seed        uint64
	out         string
	stores      string
	warmup      int
	progress    time.Duration // between progress lines within a case; 0: none
}

func run(args []string, stdout, stderr io.Writer) error {
	// FRONTIERSETS_KERNELS forces the block engine's kernels of the
	// in-process bakes (and pvsbake's, which reads it too).
	if k := os.Getenv("FRONTIERSETS_KERNELS"); k != "" {
		if err := horizon.SetKernels(k); err != nil {
			return cli.Usagef("FRONTIERSETS_KERNELS=%s", strings.TrimPrefix(err.Error(), horizon.ErrKernels.Error()+": "))
		}
	}
	if len(args) > 0 && args[0] == "bake" {
		return runBakeBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "shard" {
		return runShardBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "share" {
		return runShareBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sim" {
		return runSimBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "scale" {
		return runScaleBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "viewsheds" {
		return runViewshedBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "los" {
		return runLOSBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "region" {
		return runRegionBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "scaling" {
		return runScalingBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "raw" {
		return runRawBench(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "geotiff" {
		return runGeoTIFFBench(args[1:], stdout, stderr)
	}
	fs := cli.NewFlagSet("bench", "bench [--pairs 10500] [--audit 200] [--out bench/results] [--stores DIR]", stderr)
	hgt := fs.String("open", "../shared/data/N44W072.hgt", "open terrain `DEM`")
	hgtWin := fs.String("open-window", "700,700,316,316", "open terrain `window` (≈100,000 points)")
	dsm := fs.String("urban", "../shared/data/annarbor-dsm-2ft.tif", "urban terrain `DEM`")
	dsmWin := fs.String("urban-window", "143,184,500,500", "urban terrain `window` (250,000 points)")
	only := fs.String("terrains", "open,urban", "which `terrains` to run")
	limits := fs.String("limits", "0.1,0.25,0.5,1", "memory limits in `GiB` (the thesis's GB are 2^30 bytes)")
	var c config
	fs.IntVar(&c.pairs, "pairs", 10500, "mutually invisible `pairs` per case")
	fs.IntVar(&c.slowPairs, "slow-pairs", 0, "`pairs` for simple/lossless, the slowest case (0: --pairs)")
	fs.IntVar(&c.firstPair, "first-pair", 0, "start the timed pairs at this `index` of the seed's sequence, to run a case in parts (see --combine)")
	casesFlag := fs.String("cases", "hierarchical/lossless,hierarchical/lossy,simple/lossless,simple/lossy", "method/merge `cases` to run")
	combine := fs.String("combine", "", "write one report from the results `folders` (comma-separated) of runs made in parts, instead of running")
	fs.BoolVar(&c.reuse, "reuse", false, "reuse the stores of an earlier bake of the same DEMs, windows and limits in --stores (bake time and peak RSS are taken from its record)")
	fs.IntVar(&c.jobs, "jobs", 1, "terrains whose queries run at once, each on its own thread (1: one thread, GOMAXPROCS=1)")
	fs.IntVar(&c.audit, "audit", 200, "frontier sets audited per case")
	fs.IntVar(&c.auditSample, "audit-sample", 8, "frontier `points` per side whose PVS is recomputed in an audit")
	fs.Uint64Var(&c.seed, "seed", 1, "random `seed`")
	fs.IntVar(&c.warmup, "warmup", 50, "untimed `queries` before each case")
	fs.DurationVar(&c.progress, "progress", time.Minute, "print a case's progress at this `interval` (0: only when it ends)")
	fs.StringVar(&c.out, "out", "bench/results", "results `folder`; a new dated subfolder is made (<date>, <date>-2, …)")
	fs.StringVar(&c.stores, "stores", filepath.Join(os.TempDir(), "pvs-bench"), "`folder` for the baked stores (large; not committed)")
	accFlag := fs.String("accountings", "ours,thesis", "budget `accountings` to bake and run: ours, thesis, ours-minloss, thesis-minloss (the same caps, collapsing the groups that lose the fewest hidden cells first), ours-global and thesis-global (one price in hidden cells per byte for all trees, pvsbake allocate), ours-coded (a coded store filling the limit at one price: pvsbake bake --encoding coded)")
	fs.IntVar(&c.maxSteps, "max-steps", grow.DefaultMaxSteps, "bound every query at this many `quads` considered (grow.Options.MaxSteps, the library's default; 0: none, as the thesis grows)")
	replot := fs.String("replot", "", "only draw the plots of the results `folder` again: the trends from its summary.csv, the distributions from its runs.csv.zst where present")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *replot != "" {
		return replotDir(*replot, stdout)
	}
	for _, s := range strings.Split(*limits, ",") {
		var v float64
		if _, err := fmt.Sscan(s, &v); err != nil || v <= 0 {
			return cli.Usagef("--limits %q: want GiB values", *limits)
		}
		c.limitsGiB = append(c.limitsGiB, v)
	}
	for _, t := range []struct{ name, path, win string }{{"open", *hgt, *hgtWin}, {"urban", *dsm, *dsmWin}} {
		if !strings.Contains(*only, t.name) {
			continue
		}
		w, err := heightmap.ParseWindow(t.win)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		c.terrains = append(c.terrains, terrain{t.name, t.path, w})
	}
	if *combine != "" {
		return combineRuns(c.out, strings.Split(*combine, ","), stdout)
	}
	if c.slowPairs == 0 {
		c.slowPairs = c.pairs
	}
	for _, name := range strings.Split(*casesFlag, ",") {
		i := slices.IndexFunc(cases, func(mm methodMerge) bool { return mm.method.String()+"/"+mm.merge.String() == name })
		if i < 0 {
			return cli.Usagef("--cases: %q is not one of hierarchical/lossless, hierarchical/lossy, simple/lossless, simple/lossy", name)
		}
		c.cases = append(c.cases, cases[i])
	}
	for _, a := range strings.Split(*accFlag, ",") {
		if !slices.Contains(knownAccountings, a) || slices.Contains(c.accountings, a) {
			return cli.Usagef("--accountings: %q is not one of %s, or is repeated", a, strings.Join(knownAccountings, ", "))
		}
		c.accountings = append(c.accountings, a)
	}
	if c.maxSteps < 0 {
		return cli.Usagef("--max-steps %d: want ≥ 0", c.maxSteps)
	}
	if c.jobs < 1 || c.jobs > runtime.NumCPU() {
		return cli.Usagef("--jobs %d: want 1 to %d (the cores)", c.jobs, runtime.NumCPU())
	}
	if c.pairs < 1 || c.slowPairs < 1 || c.slowPairs > c.pairs || c.firstPair < 0 || c.audit < 0 || c.warmup < 0 || c.progress < 0 {
		return cli.Usagef("--pairs ≥ 1, 1 ≤ --slow-pairs ≤ --pairs, --first-pair ≥ 0, --audit ≥ 0, --warmup ≥ 0, --progress ≥ 0")
	}
	outDir, err := newResultsDir(c.out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.stores, 0o755); err != nil {
		return err
	}
	var rep report
	rep.config = c
	rep.started = time.Now().UTC()
	rep.audits, rep.truncated = map[caseKey][2]int{}, map[caseKey]int{}
	// Bakes first, on every core; then the queries, one terrain per thread.
	runs := make([]*terrainRun, len(c.terrains))
	for i, t := range c.terrains {
		var err error
		if runs[i], err = bakeTerrain(&c, t, stdout); err != nil {
			return err
		}
	}
	parts := make([]report, len(runs))
	if c.jobs > 1 {
		runtime.GOMAXPROCS(c.jobs)
	}
	var eg errgroup.Group
	eg.SetLimit(c.jobs)
	for i, tr := range runs {
		parts[i].audits, parts[i].truncated = map[caseKey][2]int{}, map[caseKey]int{}
		eg.Go(func() error {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			return tr.bench(&c, &parts[i], stdout)
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	for _, p := range parts {
		rep.stores = append(rep.stores, p.stores...)
		rep.runs = append(rep.runs, p.runs...)
		maps.Copy(rep.audits, p.audits)
		maps.Copy(rep.truncated, p.truncated)
	}
	rep.elapsed = time.Since(rep.started)
	return rep.write(outDir, stdout)
}

// newResultsDir makes a new folder under out for one run's results:
// <date>, or <date>-2, -3… when that day already has results, so that no
// run overwrites another.
func newResultsDir(out string) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	day := time.Now().UTC().Format("2006-01-02")
	dir := filepath.Join(out, day)
	for n := 2; ; n++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", err
		}
		dir = filepath.Join(out, fmt.Sprintf("%s-%d", day, n))
	}
}

// newResultsSubdir makes a new dated folder under out (newResultsDir) and
// the folder name inside it, for a benchmark that writes several files
// there, and returns the latter.
func newResultsSubdir(out, name string) (string, error) {
	dir, err := newResultsDir(out)
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, name)
	return dir, os.MkdirAll(dir, 0o755)
}

// combineRuns writes into a new results folder under out one report from
// the results folders dirs of a run made in parts (--cases, --first-pair):
// every query of their runs.csv.zst, their audits summed, and the stores of
// the first. A pair timed twice in one case is an error.
func combineRuns(out string, dirs []string, log io.Writer) error {
	var rep report
	rep.audits = map[caseKey][2]int{}
	seen := map[caseKey]map[int]bool{}
	for i, dir := range dirs {
		var part report
		if err := part.readRuns(filepath.Join(dir, "runs.csv.zst")); err != nil {
			return err
		}
		for _, x := range part.runs {
			if seen[x.caseKey] == nil {
				seen[x.caseKey] = map[int]bool{}
			}
			if seen[x.caseKey][x.Pair] {
				return fmt.Errorf("%s: pair %d of %s %gGiB %s %s/%s was timed in an earlier folder too", dir, x.Pair, x.Terrain, x.LimitGiB, x.Accounting, x.Method, x.Merge)
			}
			seen[x.caseKey][x.Pair] = true
		}
		rep.runs = append(rep.runs, part.runs...)
		for _, t := range part.terrains {
			if !slices.ContainsFunc(rep.terrains, func(u terrain) bool { return u.Name == t.Name }) {
				rep.terrains = append(rep.terrains, t)
			}
		}
		for _, l := range part.limitsGiB {
			if !slices.Contains(rep.limitsGiB, l) {
				rep.limitsGiB = append(rep.limitsGiB, l)
			}
		}
		if err := rep.readAudits(filepath.Join(dir, "summary.csv")); err != nil {
			return err
		}
		if i == 0 {
			if err := rep.readStores(filepath.Join(dir, "stores.csv")); err != nil {
				return err
			}
		}
	}
	// Pairs per case: the most any case has, and simple/lossless's fewest.
	for _, s := range rep.summaries() {
		rep.pairs = max(rep.pairs, s.pairs)
		if s.Method == "simple" && s.Merge == "lossless" && (rep.slowPairs == 0 || s.pairs < rep.slowPairs) {
			rep.slowPairs = s.pairs
		}
	}
	if rep.slowPairs == 0 {
		rep.slowPairs = rep.pairs
	}
	rep.combined = dirs
	rep.started = time.Now().UTC()
	dir, err := newResultsDir(out)
	if err != nil {
		return err
	}
	return rep.write(dir, log)
}

// knownAccountings, in report order: ours caps codes from the byte budget;
// thesis caps nodes at budget / (quads · 3 bytes), Table 4.5; the -minloss
// ones apply the same caps collapsing the leaf groups that lose the fewest
// hidden cells first (compress.Cap.MinLoss) instead of the thesis's deepest
// last-in-breadth-first-order group.
var knownAccountings = []string{"ours", "thesis", "ours-minloss", "thesis-minloss", "ours-global", "thesis-global", "ours-coded"}

// global reports whether accounting acc allocates one budget across all
// trees (compress.Allocate): baked min-loss at DefaultCeilingFactor times
// the limit, then re-capped to the limit at one price (hidden cells per
// byte). ours-coded is baked to a coded store that fills the limit at one
// price in one bake (pvsbake bake --encoding coded).
func global(acc string) bool { return strings.HasSuffix(acc, "-global") }

// ceilingPath is where a global accounting's store is baked before its
// allocation writes path.
func ceilingPath(path string) string { return strings.TrimSuffix(path, ".pvs") + "-ceiling.pvs" }

// accountingCap returns the cap of accounting acc for a budget over quads
// (for a global one, the cap its store is baked at before the allocation).
func accountingCap(acc string, budget int64, quads int) (compress.Cap, error) {
	var cp compress.Cap
	var err error
	switch {
	case acc == "ours-global":
		cp, err = compress.CapForBudget(compress.DefaultCeilingFactor*budget, quads)
	case acc == "ours-coded":
		return compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, nil
	case acc == "thesis-global":
		cp, err = compress.ThesisNodeCap(compress.DefaultCeilingFactor*budget, quads)
	case strings.HasPrefix(acc, "ours"):
		cp, err = compress.CapForBudget(budget, quads)
	default:
		cp, err = compress.ThesisNodeCap(budget, quads)
	}
	cp.MinLoss = strings.HasSuffix(acc, "-minloss") || global(acc)
	return cp, err
}

type methodMerge struct {
	method grow.Method
	merge  quadpvs.Mode
}

var cases = []methodMerge{
	{grow.Hierarchical, quadpvs.Lossless}, {grow.Hierarchical, quadpvs.Lossy},
	{grow.Simple, quadpvs.Lossless}, {grow.Simple, quadpvs.Lossy},
}

// terrainRun is one terrain's baked stores, ready to be benchmarked.
type terrainRun struct {
	t     terrain
	dem   *heightmap.Grid
	quads int
	outs  []bake.Output
	rec   bakeRecord
}

// bakeTerrain bakes one terrain at every limit and accounting in one pass
// (or reuses an earlier bake, with --reuse).
func bakeTerrain(c *config, t terrain, log io.Writer) (*terrainRun, error) {
	dem, err := heightmap.Load(t.Path, heightmap.Options{Window: t.Window})
	if err != nil {
		return nil, err
	}
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return nil, err
	}
	quads := g.QuadCount()
	var outs []bake.Output
	for _, lim := range c.limitsGiB {
		budget := int64(lim * (1 << 30))
		for _, acc := range c.accountings {
			cp, err := accountingCap(acc, budget, quads)
			if err != nil {
				return nil, err
			}
			outs = append(outs, bake.Output{
				Path:   filepath.Join(c.stores, fmt.Sprintf("%s-%gGiB-%s.pvs", t.Name, lim, acc)),
				Budget: budget, Cap: cp, Coded: acc == "ours-coded",
			})
		}
	}
	params := horizon.ThesisParams() // §4's protocol: the thesis's sector model
	rec := bakeRecord{Source: t.Path, Window: t.Window, LimitsGiB: c.limitsGiB, Params: params}
	recPath := filepath.Join(c.stores, t.Name+"-bake.json")
	if !c.reuse || !rec.load(recPath, outs) {
		fmt.Fprintf(log, "%s: baking %d×%d points into %d stores…\n", t.Name, dem.Width, dem.Height, len(outs))
		runtime.GOMAXPROCS(runtime.NumCPU())
		start := time.Now()
		baked := slices.Clone(outs)
		for i := range baked {
			if global(c.accountings[i%len(c.accountings)]) {
				baked[i].Path = ceilingPath(outs[i].Path)
			}
		}
		stats, err := bake.Run(context.Background(), bake.Config{DEM: dem, Params: params, Outputs: baked})
		if err != nil {
			return nil, err
		}
		for i, o := range outs {
			if baked[i].Path == o.Path {
				continue
			}
			s, err := bake.OpenStore(baked[i].Path)
			if err != nil {
				return nil, err
			}
			st, a, err := bake.AllocateStore(s, o.Path, o.Budget, compress.AllocateOptions{})
			if err != nil {
				return nil, fmt.Errorf("allocate %s: %w", o.Path, err)
			}
			stats[i] = st
			fmt.Fprintf(log, "%s: allocated %s at price %.3g, ceiling %d: hidden kept %.2f%%\n",
				t.Name, filepath.Base(o.Path), a.Threshold, max(a.CeilingCodes, a.CeilingNodes), 100*st.HiddenKept)
			if err := os.Remove(baked[i].Path); err != nil {
				return nil, err
			}
		}
		rec.BakeSeconds, rec.PeakRSS, rec.Stats, rec.Baked = time.Since(start).Seconds(), peakRSS(), stats, time.Now().UTC()
		if err := rec.save(recPath, outs); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "%s: baked in %.1f s, peak RSS %s\n", t.Name, rec.BakeSeconds, compress.FormatBytes(rec.PeakRSS))
	} else {
		fmt.Fprintf(log, "%s: reusing the stores baked %s (%.1f s, peak RSS %s)\n", t.Name,
			rec.Baked.Format(time.RFC3339), rec.BakeSeconds, compress.FormatBytes(rec.PeakRSS))
	}
	return &terrainRun{t: t, dem: dem, quads: quads, outs: outs, rec: rec}, nil
}

// bench runs and audits every case on each of the terrain's stores.
func (tr *terrainRun) bench(c *config, rep *report, log io.Writer) error {
	t, dem, quads, outs := tr.t, tr.dem, tr.quads, tr.outs
	bakeSec, rss := tr.rec.BakeSeconds, tr.rec.PeakRSS
	model, err := horizon.New(bake.Terrain(dem), tr.rec.Params) // the bake's parameters
	if err != nil {
		return err
	}
	for i, o := range outs {
		lim, acc := c.limitsGiB[i/len(c.accountings)], c.accountings[i%len(c.accountings)]
		fi, err := os.Stat(o.Path)
		if err != nil {
			return err
		}
		loadStart := time.Now()
		st, err := bake.OpenStore(o.Path)
		if err != nil {
			return err
		}
		// The store's own cap and statistics: those of the bake, or of a
		// store re-capped with sharing (pvsbake share) put in its place.
		rep.stores = append(rep.stores, storeRow{Terrain: t.Name, LimitGiB: lim, Accounting: acc, Points: dem.Width * dem.Height,
			Quads: quads, CapCodes: st.Cap.Codes, CapNodes: st.Cap.Nodes, NodesTotal: st.NodesTotal, NodesMax: st.NodesMax,
			MemoryBytes: st.MemoryBytes, FileBytes: fi.Size(), HiddenKept: st.HiddenKept,
			BakeSeconds: bakeSec, PeakRSS: rss, LoadSeconds: time.Since(loadStart).Seconds()})
		gr, err := grow.New(st.Hierarchy, st.Elev, st.Nodata)
		if err != nil {
			return err
		}
		if err := benchStore(c, t.Name, lim, acc, gr, model, rep, log); err != nil {
			return err
		}
	}
	return nil
}

// bakeRecord describes one terrain's bake in the stores folder, so that
// --reuse can skip it and still report what it cost.
type bakeRecord struct {
	Source      string           `json:"source"`
	Window      heightmap.Window `json:"window"`
	LimitsGiB   []float64        `json:"limits_gib"`
	Params      horizon.Params   `json:"params"`
	Baked       time.Time        `json:"baked"`
	BakeSeconds float64          `json:"bake_s"`
	PeakRSS     int64            `json:"peak_rss_bytes"`
	Stats       []compress.Stats `json:"stats"`
	Stores      []storeFile      `json:"stores"`
}

// storeFile identifies a baked store by size and modification time.
type storeFile struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
}

// load fills r from the record at path and reports whether it describes
// the same bake (DEM, window, limits, parameters) and its stores are there
// unchanged.
func (r *bakeRecord) load(path string, outs []bake.Output) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var old bakeRecord
	if json.Unmarshal(b, &old) != nil || old.Source != r.Source || old.Window != r.Window ||
		fmt.Sprint(old.LimitsGiB) != fmt.Sprint(r.LimitsGiB) || old.Params != r.Params ||
		len(old.Stats) != len(outs) || len(old.Stores) != len(outs) {
		return false
	}
	for i, o := range outs {
		fi, err := os.Stat(o.Path)
		if err != nil || old.Stores[i].Path != o.Path || fi.Size() != old.Stores[i].Size || !fi.ModTime().Equal(old.Stores[i].ModTime) {
			return false
		}
	}
	*r = old
	return true
}

// save records the stores just baked at path.
func (r *bakeRecord) save(path string, outs []bake.Output) error {
	r.Stores = r.Stores[:0]
	for _, o := range outs {
		fi, err := os.Stat(o.Path)
		if err != nil {
			return err
		}
		r.Stores = append(r.Stores, storeFile{o.Path, fi.Size(), fi.ModTime().UTC()})
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// benchStore draws the pairs for one store and runs every case on them,
// one thread, after warm-up; then audits a sample of each case's frontier
// sets.
func benchStore(c *config, name string, lim float64, acc string, gr *grow.Grower, model *horizon.Model, rep *report, log io.Writer) error {
	g := gr.Geometry()
	rng := rand.New(rand.NewPCG(c.seed, uint64(lim*1000)))
	var s grow.Scratch
	var res grow.Result
	var pairs [][2][2]int
	for tries := 0; len(pairs) < c.warmup+c.firstPair+c.pairs; tries++ {
		if tries > 1000*(c.warmup+c.firstPair+c.pairs) {
			return fmt.Errorf("%s %g GiB %s: too few mutually invisible pairs", name, lim, acc)
		}
		a := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		b := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		if vis, err := gr.MutuallyVisible(a, b); err != nil || vis {
			continue
		}
		pairs = append(pairs, [2][2]int{a, b})
	}
	var kept []grow.Result
	if c.jobs == 1 {
		prev := runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(prev)
	}
	for _, mm := range c.cases {
		opt := grow.Options{Method: mm.method, Merge: mm.merge, MaxSteps: c.maxSteps}
		if c.maxSteps == 0 {
			opt.MaxSteps = grow.Unbounded
		}
		key := caseKey{name, lim, acc, mm.method.String(), mm.merge.String()}
		for _, p := range pairs[:c.warmup] {
			gr.Grow(p[0], p[1], opt, &s, &res)
		}
		timed := pairs[c.warmup+c.firstPair:]
		if mm.method == grow.Simple && mm.merge == quadpvs.Lossless {
			timed = timed[:c.slowPairs]
		}
		// The first c.audit frontier sets are kept and audited after the
		// timed loop, so that recomputing PVSs does not disturb the timing.
		kept = kept[:0]
		label := fmt.Sprintf("%s %gGiB %s %s/%s", name, lim, acc, mm.method, mm.merge)
		start := time.Now()
		next := start.Add(c.progress)
		truncated := 0
		for i, p := range timed {
			if err := gr.Grow(p[0], p[1], opt, &s, &res); err != nil {
				return err
			}
			if res.Truncated {
				truncated++
			}
			rep.runs = append(rep.runs, runRow{caseKey: key, Pair: c.firstPair + i, A: p[0], B: p[1],
				Points: res.A.Points + res.B.Points, MS: float64(res.Elapsed.Nanoseconds()) / 1e6})
			if i < c.audit {
				kept = append(kept, res.Clone())
			}
			// Outside the query's own clock (res.Elapsed), so it is not timed.
			if c.progress > 0 && i+1 < len(timed) {
				if now := time.Now(); now.After(next) {
					next = now.Add(c.progress)
					left := time.Duration(float64(now.Sub(start)) / float64(i+1) * float64(len(timed)-i-1))
					fmt.Fprintf(log, "%s: %d of %d pairs, about %s left\n", label, i+1, len(timed), left.Round(time.Second))
				}
			}
		}
		elapsed := time.Since(start)
		v, checked, err := auditCase(c, model, kept, rng)
		if err != nil {
			return err
		}
		rep.audits[key] = [2]int{v, checked}
		if truncated > 0 {
			rep.truncated[key] = truncated
		}
		fmt.Fprintf(log, "%s: %d pairs in %.1f s (%d stopped by --max-steps), audit %d points, %d violations\n", label, len(timed), elapsed.Seconds(), truncated, checked, v)
	}
	return nil
}

// auditCase recomputes, for each frontier set of results, the uncompressed
// PVS of auditSample points per frontier and counts points of the other
// frontier they see: the guarantee in both directions.
func auditCase(c *config, model *horizon.Model, results []grow.Result, rng *rand.Rand) (violations, checked int, err error) {
	wk := model.NewWorker()
	var bm horizon.Bitmap
	for i := range results {
		res := &results[i]
		for side, f := range [2]*grow.Frontier{&res.A, &res.B} {
			other := [2]*grow.Frontier{&res.A, &res.B}[1-side].AppendCells(nil)
			cells := f.AppendCells(nil)
			rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
			sample := append(cells[:min(c.auditSample-1, len(cells)):min(c.auditSample-1, len(cells))], [2]int{f.Col, f.Row})
			for _, q := range sample {
				if bm, err = wk.Viewshed(q[0], q[1], bm); err != nil {
					return 0, 0, err
				}
				checked++
				for _, o := range other {
					if bm.Visible(o[0], o[1]) {
						violations++
					}
				}
			}
		}
	}
	return violations, checked, nil
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb int64
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kb); n == 1 {
			return kb << 10
		}
	}
	return 0
}

// gcPercent returns the GOGC setting in force.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// replotDir draws the plots of a results folder again (--replot): the
// distributions and trends from runs.csv.zst where the folder has it, else
// the trends alone from summary.csv and stores.csv (which name the
// accountings).
func replotDir(dir string, stdout io.Writer) error {
	var rep report
	rep.audits = map[caseKey][2]int{}
	runs := filepath.Join(dir, "runs.csv.zst")
	if _, err := os.Stat(runs); err == nil {
		if err := rep.readRuns(runs); err != nil {
			return err
		}
		if err := writePlots(dir, &rep, rep.summaries()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "redrew the plots in %s\n", dir)
		return nil
	}
	sums, err := rep.readSummaries(filepath.Join(dir, "summary.csv"))
	if err != nil {
		return err
	}
	if err := rep.readStores(filepath.Join(dir, "stores.csv")); err != nil {
		return err
	}
	if err := writeTrends(dir, &rep, sums); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "drew the trend plots in %s from its summary.csv (no runs.csv.zst there for the distributions)\n", dir)
	return nil
}
