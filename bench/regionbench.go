package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// The players-anywhere benchmark (`go run ./bench region`): the region
// model (horizon.LOSRegion) on a 1 m game map — the HGT tile around Mount
// Washington warped to 1 m, 4097² cells (regionWarp) — at PVS cells of
// several sizes and a 2 km view distance, and on a
// window of the 18 m scale map (scaleWarp) at PVS cells of 18 m beside the
// conservative point model; both also with the region model's versions
// named by --compare (region-v3, the swept squares, by default; the
// default, version 5, takes cuts across the wedge, on PVS cells too).
// Each store is baked by pvsbake
// (timed), opened
// and queried (hierarchical growing, lossy merges, one thread), and its
// frontier sets checked at positions inside their cells against exact
// line of sight on the heightmap (losref.Positions). Results:
// region/region.csv under a new dated results folder.

// regionWarp makes the 1 m map from the tile (gdalwarp's arguments before
// the input and output): 4097² cells, heights 1,016–1,911 m; --raw-pvs-cell
// also bakes it as a Unity RAW (writeUnityRaw).
var regionWarp = []string{"-t_srs", "EPSG:32619", "-tr", "1", "1", "-r", "cubic", "-ot", "Float32", "-te", "314000", "4902000", "318097", "4906097"}

// regionRow is one store's line of region.csv.
type regionRow struct {
	Map           string
	PVSCellM      float64
	Points        int
	BakeS         float64
	BakeCPUS      float64
	PeakRSSMB     float64
	StoreBytes    int64
	HiddenKept    float64
	HiddenVsPoint float64 // NaN where not measured
	LossyMeanMS   float64
	LossyP99MS    float64
	MaxMS         float64
	PositionPairs int64
	Violations    int64 // cell pairs inside frontier sets with a position pair that sees each other
}

func (r regionRow) csv() []string {
	f := func(v float64, prec int) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	return []string{r.Map, f(r.PVSCellM, 2), strconv.Itoa(r.Points), f(r.BakeS, 1), f(r.BakeCPUS, 1), f(r.PeakRSSMB, 0),
		strconv.FormatInt(r.StoreBytes, 10), f(r.HiddenKept, 4), f(r.HiddenVsPoint, 4), f(r.LossyMeanMS, 3), f(r.LossyP99MS, 3),
		f(r.MaxMS, 2), strconv.FormatInt(r.PositionPairs, 10), strconv.FormatInt(r.Violations, 10)}
}

var regionHeader = []string{"map", "pvs_cell_m", "points", "bake_s", "bake_cpu_s", "peak_rss_mb", "store_bytes", "hidden_kept",
	"hidden_vs_point", "lossy_mean_ms", "lossy_p99_ms", "max_ms", "position_pairs", "violations"}

func runRegionBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench region", "bench region [--pvs-cells 4,8,16] [--point-window 513] [--pairs 2000] [--positions 1000000]", stderr)
	hgt := fs.String("hgt", "../shared/data/N44W072.hgt", "the HGT `tile` the maps are warped from")
	cellsFlag := fs.String("pvs-cells", "4,8,16", "PVS cells of the 1 m map in `metres` (\"\": none)")
	rawCell := fs.Float64("raw-pvs-cell", 8, "PVS cell in `metres` of the 1 m map's Unity RAW bake (0: none)")
	pointWin := fs.Int("point-window", 513, "side in `cells` of the 18 m map's centred window baked with both models (0: none)")
	maxDist := fs.Float64("max-distance", 2000, "view distance in `metres`")
	budget := fs.String("budget", "1GiB", "store `budget`")
	pairs := fs.Int("pairs", 2000, "mutually invisible `pairs` queried per store")
	positions := fs.Int64("positions", 1_000_000, "position `pairs` checked per store, at least (inside the frontier sets of the queried pairs)")
	observers := fs.Int("observers", 200, "random `observers` comparing the two models' hidden cells on the 18 m window")
	compare := fs.String("compare", "region-v3", "region model `versions` baked beside the default on the 1 m map's PVS cells and the 18 m window, comma-separated (\"\": none)")
	seed := fs.Uint64("seed", 1, "random `seed`")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	stores := fs.String("stores", filepath.Join(os.TempDir(), "pvs-region"), "`folder` for the maps and the stores (large; not committed)")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	var cells []float64
	for _, s := range strings.Split(*cellsFlag, ",") {
		if strings.TrimSpace(*cellsFlag) == "" {
			break
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || v < 1 || v != math.Trunc(v) {
			return cli.Usagef("--pvs-cells %q: want whole metres ≥ 1 (the map's cells are 1 m)", *cellsFlag)
		}
		cells = append(cells, v)
	}
	if *rawCell < 0 || *rawCell != math.Trunc(*rawCell) {
		return cli.Usagef("--raw-pvs-cell %g: want whole metres ≥ 1, or 0 for none", *rawCell)
	}
	if *pairs < 1 || *positions < 0 || *observers < 1 || (*pointWin != 0 && (*pointWin < 64 || *pointWin > 4097)) {
		return cli.Usagef("--pairs ≥ 1, --positions ≥ 0, --observers ≥ 1, --point-window 0 or 64 to 4097")
	}
	models := []string{"region"}
	if *compare != "" {
		more, err := modelList("--compare", *compare)
		if err != nil {
			return err
		}
		models = append(models, more...)
	}
	if _, err := exec.LookPath("gdalwarp"); err != nil {
		return fmt.Errorf("gdalwarp not found (apt-get install gdal-bin): the benchmark warps its maps with it")
	}
	if err := os.MkdirAll(*stores, 0o755); err != nil {
		return err
	}
	bin, err := buildPvsbake(*stores, stderr)
	if err != nil {
		return err
	}
	m1 := filepath.Join(*stores, "mw1m.tif")
	if _, err := os.Stat(m1); err != nil {
		warp := exec.Command("gdalwarp", append(append(slices.Clone(regionWarp), "-q", "-of", "GTiff", *hgt), m1+".tmp")...)
		warp.Stderr = stderr
		if err := warp.Run(); err != nil {
			return fmt.Errorf("gdalwarp %s: %w", *hgt, err)
		}
		if err := os.Rename(m1+".tmp", m1); err != nil {
			return err
		}
	}
	dir, err := newResultsSubdir(*out, "region")
	if err != nil {
		return err
	}
	var rows []regionRow
	// bakeRow bakes a 1 m map store (no point-model comparison), queries
	// it, checks positions on dem and writes the results so far.
	bakeRow := func(name string, cellM float64, path string, bargs []string, dem string, demOpt heightmap.Options) error {
		row, err := regionBake(bin, bargs, name, cellM, stdout, stderr)
		if err != nil {
			return err
		}
		if err := regionQueries(&row, path, dem, demOpt, *pairs, *positions, *seed, stdout); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		row.HiddenVsPoint = math.NaN()
		rows = append(rows, row)
		return writeRegionResults(dir, rows, args)
	}
	for _, c := range cells {
		for _, los := range models {
			path := filepath.Join(*stores, fmt.Sprintf("mw1m-%g-%s.pvs", c, los))
			bargs := []string{"bake", "--yes", m1, "--los", los, "--pvs-cell", strconv.FormatFloat(c, 'f', -1, 64), "--max-distance",
				strconv.FormatFloat(*maxDist, 'f', -1, 64), "--budget", *budget, "-o", path, "--progress", "1m"}
			if err := bakeRow(modelMap("mw1m 4097² 1 m", los), c, path, bargs, m1, heightmap.Options{}); err != nil {
				return err
			}
		}
	}
	if *rawCell > 0 {
		// The same map as a game engine holds it: Unity's 16-bit RAW,
		// baked with --cell-size and --height-range, its frontier sets
		// checked on the RAW's own surface.
		g, err := heightmap.Load(m1, heightmap.Options{})
		if err != nil {
			return err
		}
		raw := filepath.Join(*stores, "mw1m.raw")
		rng, dz, rangeFlag, err := writeUnityRaw(raw, g)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: heights %g–%g m in steps of %.4f m, at most %.4f m from the GeoTIFF\n", raw, rng[0], rng[1], (rng[1]-rng[0])/65535, dz)
		path := filepath.Join(*stores, fmt.Sprintf("mw1m-raw-%g.pvs", *rawCell))
		bargs := []string{"bake", "--yes", raw, "--cell-size", "1", "--height-range", rangeFlag, "--los", "region", "--pvs-cell", strconv.FormatFloat(*rawCell, 'f', -1, 64),
			"--max-distance", strconv.FormatFloat(*maxDist, 'f', -1, 64), "--budget", *budget, "-o", path, "--progress", "1m"}
		if err := bakeRow("mw1m 4097² 1 m Unity RAW", *rawCell, path, bargs, raw, heightmap.Options{CellSize: 1, HeightRange: rng}); err != nil {
			return err
		}
	}
	if *pointWin > 0 {
		m18, err := scaleMap(*stores, *hgt, stderr)
		if err != nil {
			return err
		}
		off := (4097 - *pointWin) / 2
		win := heightmap.Window{Col: scaleCorner[0] + off, Row: scaleCorner[1] + off, Width: *pointWin, Height: *pointWin}
		ws := fmt.Sprintf("%d,%d,%d,%d", win.Col, win.Row, win.Width, win.Height)
		name := fmt.Sprintf("utm18 %d²", *pointWin)
		share, err := regionVsPoint(m18, win, *maxDist, *observers, *seed)
		if err != nil {
			return err
		}
		for _, los := range append([]string{"conservative"}, models...) {
			path := filepath.Join(*stores, fmt.Sprintf("utm18-%d-%s.pvs", *pointWin, los))
			bargs := []string{"bake", "--yes", m18, "--window", ws, "--los", los, "--max-distance", strconv.FormatFloat(*maxDist, 'f', -1, 64),
				"--budget", *budget, "-o", path, "--progress", "1m"}
			row, err := regionBake(bin, bargs, name+" "+los, 18, stdout, stderr)
			if err != nil {
				return err
			}
			row.HiddenVsPoint = math.NaN()
			if los == "region" {
				row.HiddenVsPoint = share // the default's
			}
			// The point model's frontier sets are checked at positions too:
			// what it does not promise, measured.
			if err := regionQueries(&row, path, m18, heightmap.Options{Window: win}, *pairs, *positions, *seed, stdout); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			rows = append(rows, row)
			if err := writeRegionResults(dir, rows, args); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

// modelMap names a map's row for model los: the map's name alone for the
// default model, else followed by the model ("mw1m 4097² 1 m region-v2").
func modelMap(name, los string) string {
	if los == "region" {
		return name
	}
	return name + " " + los
}

// regionBake runs pvsbake with bargs, timed, and starts the store's row.
func regionBake(bin string, bargs []string, name string, cellM float64, stdout, stderr io.Writer) (regionRow, error) {
	fmt.Fprintf(stdout, "%s: pvsbake %s\n", name, strings.Join(bargs, " "))
	bk, so, err := timed(bin, bargs, stderr)
	if err != nil {
		return regionRow{}, err
	}
	fmt.Fprint(stdout, so)
	return regionRow{Map: name, PVSCellM: cellM, BakeS: bk.Wall.Seconds(), BakeCPUS: bk.CPU.Seconds(), PeakRSSMB: float64(bk.PeakRSS) / 1e6}, nil
}

// regionQueries opens the store at path, times lossy hierarchical growing
// on mutually invisible random pairs (one thread), and checks cell pairs
// of their frontier sets (a cell of A × a cell of B, drawn at random) at
// positions inside the cells against exact line of sight on the heightmap
// dem (loaded with demOpt), until at least positions position pairs are
// checked.
func regionQueries(row *regionRow, path, dem string, demOpt heightmap.Options, pairs int, positions int64, seed uint64, log io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	row.StoreBytes = st.Size()
	s, err := compress.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		return err
	}
	row.Points, row.HiddenKept = s.Width*s.Height, s.HiddenKept
	prev := runtime.GOMAXPROCS(1)
	rng := rand.New(rand.NewPCG(seed, 54))
	var sets []grow.Result
	var ms []float64
	var sc grow.Scratch
	var res grow.Result
	opt := grow.Options{Method: grow.Hierarchical, Merge: quadpvs.Lossy, MaxSteps: grow.Unbounded}
	for tries := 0; len(ms) < pairs; tries++ {
		if tries > 1000*pairs {
			runtime.GOMAXPROCS(prev)
			return fmt.Errorf("too few mutually invisible pairs")
		}
		a := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		b := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		if vis, err := gr.MutuallyVisible(a, b); err != nil || vis {
			continue
		}
		if err := gr.Grow(a, b, opt, &sc, &res); err != nil {
			runtime.GOMAXPROCS(prev)
			return err
		}
		ms = append(ms, float64(res.Elapsed.Nanoseconds())/1e6)
		if len(sets) < 200 {
			sets = append(sets, res.Clone())
		}
	}
	runtime.GOMAXPROCS(prev)
	slices.Sort(ms)
	for _, v := range ms {
		row.LossyMeanMS += v / float64(len(ms))
	}
	row.LossyP99MS, row.MaxMS = quantile(ms, 0.99), ms[len(ms)-1]
	if err := s.Err(); err != nil {
		return fmt.Errorf("a tree failed its checks: %w", err)
	}
	if positions > 0 {
		g, err := heightmap.Load(dem, demOpt)
		if err != nil {
			return err
		}
		p := s.Params.Horizon()
		chk := losref.Positions{Grid: losref.Grid{Width: g.Width, Height: g.Height, Elev: g.Elev}, Cell: p.PVSCell,
			HObs: p.ObserverHeight, Tau: p.TargetHeight, PerCell: 2, Random: 16, Search: true, Dx: g.Dx, Dy: g.Dy, MaxDistance: p.MaxDistance}
		row.PositionPairs, row.Violations = regionPositions(chk, sets, positions, seed)
	}
	fmt.Fprintf(log, "%s, PVS cell %g m: %d points, bake %.0f s (%.0f s CPU, %.0f MB peak), %s, hidden kept %.4f; lossy %.3f ms (p99 %.3f, max %.2f); %d position pairs, %d cell pairs seeing each other\n",
		row.Map, row.PVSCellM, row.Points, row.BakeS, row.BakeCPUS, row.PeakRSSMB, compress.FormatBytes(row.StoreBytes), row.HiddenKept,
		row.LossyMeanMS, row.LossyP99MS, row.MaxMS, row.PositionPairs, row.Violations)
	return nil
}

// regionPositions checks random cell pairs of the frontier sets sets (a
// cell of A, a cell of B, both ways when the heights differ) with chk on
// every core until at least want position pairs are tried; it returns the
// pairs tried and the cell pairs with a position pair that sees each other.
func regionPositions(chk losref.Positions, sets []grow.Result, want int64, seed uint64) (pairs, violations int64) {
	cells := make([][2][][2]int, len(sets))
	for i := range sets {
		cells[i] = [2][][2]int{sets[i].A.AppendCells(nil), sets[i].B.AppendCells(nil)}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)+100))
			for {
				mu.Lock()
				done := pairs >= want
				mu.Unlock()
				if done {
					return
				}
				c := cells[rng.IntN(len(cells))]
				a, b := c[0][rng.IntN(len(c[0]))], c[1][rng.IntN(len(c[1]))]
				n, best := chk.Worst(rng, a[0], a[1], b[0], b[1])
				if chk.HObs != chk.Tau {
					n2, best2 := chk.Worst(rng, b[0], b[1], a[0], a[1])
					n, best = n+n2, max(best, best2)
				}
				mu.Lock()
				pairs += int64(n)
				if best >= 0 {
					violations++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return pairs, violations
}

// regionVsPoint returns the share of the conservative point model's
// hidden cells that the region model also hides, from random observers of
// window win of dem (uncapped viewsheds, both models at the same cells).
func regionVsPoint(dem string, win heightmap.Window, maxDist float64, observers int, seed uint64) (float64, error) {
	g, err := heightmap.Load(dem, heightmap.Options{Window: win})
	if err != nil {
		return 0, err
	}
	p := horizon.DefaultParams()
	p.MaxDistance, p.LOS = maxDist, horizon.LOSConservative
	point, err := horizon.New(bake.Terrain(g), p)
	if err != nil {
		return 0, err
	}
	p.LOS = horizon.LOSRegion
	region, err := horizon.New(bake.Terrain(g), p)
	if err != nil {
		return 0, err
	}
	var both, hidden int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan [2]int, observers)
	rng := rand.New(rand.NewPCG(seed, 18))
	for range observers {
		next <- [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
	}
	close(next)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			wp, wr := point.NewWorker(), region.NewWorker()
			var bp, br horizon.Bitmap
			for o := range next {
				bp, _ = wp.Viewshed(o[0], o[1], bp)
				br, _ = wr.Viewshed(o[0], o[1], br)
				var b, h int64
				for r := range g.Height {
					for c := range g.Width {
						if !bp.Visible(c, r) {
							h++
							if !br.Visible(c, r) {
								b++
							}
						}
					}
				}
				mu.Lock()
				both, hidden = both+b, hidden+h
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return float64(both) / float64(max(hidden, 1)), nil
}

// writeRegionResults writes region.csv and a README.md into dir.
func writeRegionResults(dir string, rows []regionRow, args []string) error {
	f, err := os.Create(filepath.Join(dir, "region.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(regionHeader)
	for _, r := range rows {
		w.Write(r.csv())
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	md := "# Players anywhere: the region model\n\n`go run ./bench region " + strings.Join(args, " ") + "`\n\n" +
		"The 1 m map: `N44W072.hgt` warped with `gdalwarp " + strings.Join(regionWarp, " ") + "` (4097², heights 1,016–1,911 m), baked with " +
		"`--los region --pvs-cell M` at a 2 km view distance, and as Unity's 16-bit RAW export (the \"Unity RAW\" row: samples 0–65535 over " +
		"its height range, baked with `--cell-size 1 --height-range`, its positions checked on the RAW's own surface); the 18 m map: the scale benchmark's (`gdalwarp " + strings.Join(scaleWarp, " ") +
		"`), a centred window baked with each model. Queries: hierarchical growing with lossy merges on mutually invisible random pairs, one thread. " +
		"`position_pairs`: position pairs inside cell pairs of the first 200 frontier sets (a cell of A × a cell of B, at random) — the 16 corner " +
		"combinations, 16 random pairs and an ascent to the highest sight line per cell pair — against exact line of sight on the heightmap, sampled " +
		"twice per heightmap cell, ignoring the heightmap cell around either end; `violations`: cell pairs with a position pair that sees each other. " +
		"`hidden_vs_point`: the share of the conservative point model's hidden cells the region model also hides, uncapped, from random observers " +
		"of the 18 m window.\n"
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(md), 0o644)
}
