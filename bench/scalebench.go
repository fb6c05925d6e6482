package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
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
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// The benchmark across memory limits at game scale (`go run ./bench
// scale`): centred windows of the HGT tile warped to UTM 19N at 18 m (the
// 4097² map: heights 152–1,911 m, no nodata), baked at a 2 km view
// distance to flat and coded stores of several budgets, each opened and
// queried (hierarchical growing, lossless and lossy, --max-steps) and a
// sample of its frontier sets audited against PVSs recomputed from the
// DEM. Results: scale/scale.csv and scale/README.md under a new dated
// results folder.

// scaleWarp is how the map is made from the tile (gdalwarp's arguments
// before the input and output).
var scaleWarp = []string{"-t_srs", "EPSG:32619", "-tr", "18", "18", "-r", "cubic", "-ot", "Float32", "-dstnodata", "-32768"}

// scaleCorner is the top-left cell of the centred 4097² window of the
// warped tile (4608 × 6312 cells); smaller windows share its centre.
var scaleCorner = [2]int{255, 1107}

// scaleRow is one store's line of scale.csv.
type scaleRow struct {
	Size        int
	BudgetGiB   float64
	Encoding    string
	BakeS       float64 // the bake's wall time (all the budgets of one encoding at once)
	BakeCPUS    float64
	PeakRSSMB   float64
	StoreBytes  int64
	MemoryBytes int64
	OpenS       float64
	HiddenKept  float64
	LosslessMS  float64 // mean
	LossyMS     float64 // mean
	LossyP99MS  float64
	MaxMS       float64 // the slowest query of both cases
	PointsLossy float64 // mean frontier points, lossy
	Violations  int
	Checked     int
}

var scaleHeader = []string{"size", "budget_gib", "encoding", "bake_s", "bake_cpu_s", "peak_rss_mb", "store_bytes", "memory_bytes", "open_s",
	"hidden_kept", "lossless_mean_ms", "lossy_mean_ms", "lossy_p99_ms", "max_ms", "frontier_points_lossy", "violations"}

func (r scaleRow) csv() []string {
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	return []string{strconv.Itoa(r.Size), f(r.BudgetGiB, 2), r.Encoding, f(r.BakeS, 1), f(r.BakeCPUS, 1), f(r.PeakRSSMB, 0),
		strconv.FormatInt(r.StoreBytes, 10), strconv.FormatInt(r.MemoryBytes, 10), f(r.OpenS, 3), f(r.HiddenKept, 5),
		f(r.LosslessMS, 3), f(r.LossyMS, 3), f(r.LossyP99MS, 3), f(r.MaxMS, 2), f(r.PointsLossy, 0), strconv.Itoa(r.Violations)}
}

func runScaleBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench scale", "bench scale [--sizes 1025,2049,4097] [--budgets 0.25,0.5,1,2] [--stores DIR] [--reuse]", stderr)
	hgt := fs.String("hgt", "../shared/data/N44W072.hgt", "the HGT `tile` the map is warped from")
	sizesFlag := fs.String("sizes", "1025,2049,4097", "map `sizes` (cells a side, centred windows)")
	budgetsFlag := fs.String("budgets", "0.25,0.5,1,2", "store budgets in `GiB`")
	encFlag := fs.String("encodings", "flat,coded", "store `encodings`")
	maxDist := fs.Float64("max-distance", 2000, "view distance in `metres`")
	pairs := fs.Int("pairs", 10500, "mutually invisible `pairs` per case")
	maxSteps := fs.Int("max-steps", 125, "quads considered per query at most (grow.Options.MaxSteps)")
	audit := fs.Int("audit", 200, "frontier sets audited per case")
	auditSample := fs.Int("audit-sample", 8, "frontier `points` per side whose PVS is recomputed in an audit")
	warmup := fs.Int("warmup", 50, "untimed `queries` before each case")
	seed := fs.Uint64("seed", 1, "random `seed`")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	stores := fs.String("stores", filepath.Join(os.TempDir(), "pvs-scale"), "`folder` for the map and the stores (large; not committed)")
	reuse := fs.Bool("reuse", false, "reuse stores baked by an earlier run into --stores (their bake figures from its record)")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 64 || n > 4097 {
			return cli.Usagef("--sizes %q: want sizes from 64 to 4097", *sizesFlag)
		}
		sizes = append(sizes, n)
	}
	var budgets []float64
	for _, s := range strings.Split(*budgetsFlag, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0) {
			return cli.Usagef("--budgets %q: want GiB values", *budgetsFlag)
		}
		budgets = append(budgets, v)
	}
	encodings := strings.Split(*encFlag, ",")
	for _, e := range encodings {
		if e != "flat" && e != "coded" {
			return cli.Usagef("--encodings %q: want flat and/or coded", *encFlag)
		}
	}
	if *pairs < 1 || *audit < 0 || *auditSample < 1 || *warmup < 0 || *maxSteps < 0 {
		return cli.Usagef("--pairs ≥ 1, --audit ≥ 0, --audit-sample ≥ 1, --warmup ≥ 0, --max-steps ≥ 0")
	}
	if err := os.MkdirAll(*stores, 0o755); err != nil {
		return err
	}
	bin, err := buildPvsbake(*stores, stderr)
	if err != nil {
		return err
	}
	dem, err := scaleMap(*stores, *hgt, stderr)
	if err != nil {
		return err
	}
	dir, err := newResultsSubdir(*out, "scale")
	if err != nil {
		return err
	}
	cmdline := "go run ./bench scale " + strings.Join(args, " ")
	var rows []scaleRow
	for _, n := range sizes {
		off := (4097 - n) / 2
		win := fmt.Sprintf("%d,%d,%d,%d", scaleCorner[0]+off, scaleCorner[1]+off, n, n)
		g, err := quadpvs.NewGeometry(n, n)
		if err != nil {
			return err
		}
		for _, enc := range encodings {
			// The budgets a store of this encoding can hold: a flat store
			// needs 36 bytes per quad at least, a coded one its index and
			// tables and a byte per quad.
			var labels []string
			for _, b := range budgets {
				bytes := int64(b * (1 << 30))
				least := int64(g.QuadCount()) * (compress.QuadOverhead + int64(quadtree.BytesFor(1)))
				if enc == "coded" {
					least = compress.CodedLeast(bytes, g.QuadCount())
				}
				if bytes < least {
					fmt.Fprintf(stdout, "%d² %s: %g GiB is below the %s the store needs; skipped\n", n, enc, b, compress.FormatBytes(least))
					continue
				}
				labels = append(labels, strconv.FormatFloat(b, 'f', -1, 64)+"GiB")
			}
			if len(labels) == 0 {
				continue
			}
			prefix := filepath.Join(*stores, fmt.Sprintf("scale-%d-%s", n, enc))
			rec := prefix + ".json"
			var bk shardRow
			if b, err := os.ReadFile(rec); *reuse && err == nil && json.Unmarshal(b, &bk) == nil {
				fmt.Fprintf(stdout, "%d² %s: reusing the stores of %s\n", n, enc, rec)
			} else {
				// One budget writes -o itself: name it as several would, so
				// that a later --reuse finds every store by its budget.
				out := prefix
				if len(labels) == 1 {
					out = scaleStore(prefix, labels[0])
				}
				bargs := []string{"bake", "--yes", dem, "--window", win, "--max-distance", strconv.FormatFloat(*maxDist, 'f', -1, 64),
					"--budget", strings.Join(labels, ","), "--encoding", enc, "-o", out, "--progress", "1m"}
				fmt.Fprintf(stdout, "%d² %s: pvsbake %s\n", n, enc, strings.Join(bargs, " "))
				var so string
				if bk, so, err = timed(bin, bargs, stderr); err != nil {
					return err
				}
				fmt.Fprint(stdout, so)
				if b, err := json.Marshal(bk); err == nil {
					os.WriteFile(rec, b, 0o644)
				}
			}
			for _, l := range labels {
				path := scaleStore(prefix, l)
				if _, err := os.Stat(path); err != nil && len(labels) == 1 {
					if _, e := os.Stat(prefix); e == nil {
						path = prefix // a single-budget store of an earlier run
					}
				}
				gib, _ := strconv.ParseFloat(strings.TrimSuffix(l, "GiB"), 64)
				row := scaleRow{Size: n, BudgetGiB: gib, Encoding: enc, BakeS: bk.Wall.Seconds(), BakeCPUS: bk.CPU.Seconds(), PeakRSSMB: float64(bk.PeakRSS) / 1e6}
				if err := scaleQueries(&row, path, *pairs, *warmup, *maxSteps, *audit, *auditSample, *seed, stdout); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				rows = append(rows, row)
				if err := writeScaleResults(dir, rows, cmdline); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

// scaleStore returns the path of the store of budget label (e.g. "1GiB")
// a bake with output prefix writes: PREFIX-<label>.pvs.
func scaleStore(prefix, label string) string { return prefix + "-" + label + ".pvs" }

// scaleQueries opens the store at path, times hierarchical growing with
// lossless and lossy merges on mutually invisible random pairs, one
// thread, and audits the first frontier sets of each case.
func scaleQueries(row *scaleRow, path string, pairs, warmup, maxSteps, audits, auditSample int, seed uint64, log io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	row.StoreBytes = st.Size()
	start := time.Now()
	s, err := compress.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		return err
	}
	row.OpenS = time.Since(start).Seconds()
	row.MemoryBytes, row.HiddenKept = int64(s.Hierarchy.Bytes()), s.HiddenKept
	model, err := bake.StoreModel(s)
	if err != nil {
		return err
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	rng := rand.New(rand.NewPCG(seed, uint64(row.Size)))
	var ps [][2][2]int
	for tries := 0; len(ps) < warmup+pairs; tries++ {
		if tries > 1000*(warmup+pairs) {
			return fmt.Errorf("too few mutually invisible pairs")
		}
		a := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		b := [2]int{rng.IntN(s.Width), rng.IntN(s.Height)}
		if vis, err := gr.MutuallyVisible(a, b); err != nil || vis {
			continue
		}
		ps = append(ps, [2][2]int{a, b})
	}
	var sc grow.Scratch
	var res grow.Result
	c := config{auditSample: auditSample}
	for _, merge := range []quadpvs.Mode{quadpvs.Lossless, quadpvs.Lossy} {
		opt := grow.Options{Method: grow.Hierarchical, Merge: merge, MaxSteps: maxSteps}
		for _, p := range ps[:warmup] {
			gr.Grow(p[0], p[1], opt, &sc, &res)
		}
		ms := make([]float64, 0, pairs)
		var points float64
		var kept []grow.Result
		for i, p := range ps[warmup:] {
			if err := gr.Grow(p[0], p[1], opt, &sc, &res); err != nil {
				return err
			}
			ms = append(ms, float64(res.Elapsed.Nanoseconds())/1e6)
			points += float64(res.A.Points + res.B.Points)
			if i < audits {
				kept = append(kept, res.Clone())
			}
		}
		slices.Sort(ms)
		mean := 0.0
		for _, v := range ms {
			mean += v
		}
		mean /= float64(len(ms))
		row.MaxMS = max(row.MaxMS, ms[len(ms)-1])
		if merge == quadpvs.Lossless {
			row.LosslessMS = mean
		} else {
			row.LossyMS, row.LossyP99MS = mean, quantile(ms, 0.99)
			row.PointsLossy = points / float64(len(ms))
		}
		v, checked, err := auditCase(&c, model, kept, rng)
		if err != nil {
			return err
		}
		row.Violations += v
		row.Checked += checked
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("a tree failed its checks: %w", err)
	}
	fmt.Fprintf(log, "%d² %g GiB %s: %s in memory, opened in %.3f s, hidden kept %.4f; lossless %.3f ms, lossy %.3f ms (p99 %.3f, max %.1f), %.0f points; %d violations in %d audited points\n",
		row.Size, row.BudgetGiB, row.Encoding, compress.FormatBytes(row.MemoryBytes), row.OpenS, row.HiddenKept, row.LosslessMS, row.LossyMS, row.LossyP99MS, row.MaxMS, row.PointsLossy, row.Violations, row.Checked)
	return nil
}

// writeScaleResults writes scale.csv, the plots and README.md into dir.
func writeScaleResults(dir string, rows []scaleRow, cmdline string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(scaleHeader)
	for _, r := range rows {
		w.Write(r.csv())
	}
	w.Flush()
	if err := os.WriteFile(filepath.Join(dir, "scale.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	if err := scalePlots(dir, rows); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# Game-size maps: stores across memory limits\n\n`%s`, %s, GOMAXPROCS %d for the bakes, one thread for the queries.\n\n", cmdline, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU())
	md.WriteString("The map: `N44W072.hgt` warped with `gdalwarp " + strings.Join(scaleWarp, " ") + "`, centred windows (the 4097² one at " +
		fmt.Sprintf("%d,%d", scaleCorner[0], scaleCorner[1]) + "), baked at a 2 km view distance. A bake writes every budget of one encoding at once: its time and peak RSS are the whole bake's. Queries: hierarchical growing of random mutually invisible pairs, lossless and lossy merges, `--max-steps`; an audit recomputes PVSs of sampled frontier points from the DEM.\n\n")
	md.WriteString("| size | GiB | encoding | bake s (CPU s) | peak RSS MB | memory MB | open s | hidden kept | lossless ms | lossy ms | lossy p99 ms | max ms | lossy points | violations |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&md, "| %d² | %g | %s | %.0f (%.0f) | %.0f | %.1f | %.3f | %.2f%% | %.3f | %.3f | %.3f | %.1f | %.0f | %d of %d |\n",
			r.Size, r.BudgetGiB, r.Encoding, r.BakeS, r.BakeCPUS, r.PeakRSSMB, float64(r.MemoryBytes)/1e6, r.OpenS, 100*r.HiddenKept,
			r.LosslessMS, r.LossyMS, r.LossyP99MS, r.MaxMS, r.PointsLossy, r.Violations, r.Checked)
	}
	md.WriteString("\n![hidden cells kept against the budget](hidden-kept.png)\n\n![lossy query time against the budget](lossy-ms.png)\n")
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(md.String()), 0o644)
}

// scaleFinite is v, or 0 when it is not a finite number (for plotting).
func scaleFinite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// scalePlots draws hidden cells kept and the lossy mean query time
// against the budget, a line per size and encoding.
func scalePlots(dir string, rows []scaleRow) error {
	for _, m := range []struct {
		file, label string
		val         func(r scaleRow) float64
		log         bool
	}{
		{"hidden-kept.png", "hidden cells kept (%)", func(r scaleRow) float64 { return 100 * r.HiddenKept }, false},
		{"lossy-ms.png", "hierarchical lossy query, mean (ms)", func(r scaleRow) float64 { return max(r.LossyMS, 1e-3) }, true},
	} {
		p := plot.New()
		p.X.Label.Text = "budget (GiB)"
		p.Y.Label.Text = m.label
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		if m.log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		k := 0
		var sizes []int
		for _, r := range rows {
			if !slices.Contains(sizes, r.Size) {
				sizes = append(sizes, r.Size)
			}
		}
		for _, n := range sizes {
			for _, enc := range []string{"flat", "coded"} {
				var pts plotter.XYs
				for _, r := range rows {
					if r.Size == n && r.Encoding == enc {
						pts = append(pts, plotter.XY{X: r.BudgetGiB, Y: scaleFinite(m.val(r))})
					}
				}
				if len(pts) == 0 {
					continue
				}
				l, sc, err := plotter.NewLinePoints(pts)
				if err != nil {
					return err
				}
				l.Color, sc.Color = plotutil.Color(k), plotutil.Color(k)
				sc.Shape = plotutil.Shape(k)
				if enc == "coded" {
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				}
				p.Add(l, sc)
				p.Legend.Add(fmt.Sprintf("%d² %s", n, enc), l, sc)
				k++
			}
		}
		if m.log {
			widenLogRange(p)
		}
		if p.X.Max <= p.X.Min { // one budget: a log axis needs a range
			p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
		}
		p.Legend.Top = true
		p.BackgroundColor = color.White
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, m.file)); err != nil {
			return err
		}
	}
	return nil
}

// buildPvsbake builds pvsbake into dir (with GOEXPERIMENT=simd unless the
// environment sets an experiment) and returns its path.
func buildPvsbake(dir string, stderr io.Writer) (string, error) {
	bin := filepath.Join(dir, "pvsbake")
	build := exec.Command("go", "build", "-o", bin, "./cmd/pvsbake")
	build.Stderr = stderr
	if os.Getenv("GOEXPERIMENT") == "" {
		build.Env = append(os.Environ(), "GOEXPERIMENT=simd")
	}
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build pvsbake: %w", err)
	}
	return bin, nil
}

// scaleMap returns the path of the scale benchmark's map in dir, utm18.tif
// (the HGT tile hgt warped by scaleWarp), warping it first when absent.
func scaleMap(dir, hgt string, stderr io.Writer) (string, error) {
	dem := filepath.Join(dir, "utm18.tif")
	if _, err := os.Stat(dem); err == nil {
		return dem, nil
	}
	warp := exec.Command("gdalwarp", append(append(slices.Clone(scaleWarp), "-q", "-of", "GTiff", hgt), dem+".tmp")...)
	warp.Stderr = stderr
	if err := warp.Run(); err != nil {
		return "", fmt.Errorf("gdalwarp %s: %w", hgt, err)
	}
	return dem, os.Rename(dem+".tmp", dem)
}
