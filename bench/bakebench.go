package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// bakeCase is one bake of the bake benchmark (game-size terrains): a DEM window baked at the four limits in one pass.
type bakeCase struct {
	Name        string
	DEM         string  // path, or "synth:SIZE" for a synthetic hills terrain
	Window      string  // col,row,width,height; "" for the whole raster
	MaxDistance float64 // metres; 0 for none
	Before      string  // the figure measured before this work, for comparison
	Budgets     string  // budgets instead of --budget's ("" for those)
}

// bakeCases are the cases of `bench bake`, in the order they run.
var bakeCases = []bakeCase{
	{"hgt-316", "N44W072.hgt", "700,700,316,316", 0, "40.4 s (2026-11-22-8, per-observer engine)", ""},
	{"dsm-500", "annarbor-dsm-2ft.tif", "143,184,500,500", 0, "3 min 56 s (2026-11-22-9, per-observer engine)", ""},
	{"hgt-1025", "N44W072.hgt", "88,88,1025,1025", 0, "25 min 37 s (2026-11-22-9, per-observer engine)", ""},
	{"hgt-1201-2400m", "N44W072.hgt", "", 2400, "3 min 6 s (2026-11-22-8, per-observer engine)", ""},
	{"hgt-1201", "N44W072.hgt", "", 0, "≈ 4.6–5.3 h projected", ""},
	// 5.6 million quads: 0.1 GiB is below one node per PVS.
	{"synth-2049-3km", "synth:2049", "", 3000, "—", "0.25GiB,0.5GiB,1GiB"},
}

// bakeRow is one measured case.
type bakeRow struct {
	bakeCase
	LOS       string // the visibility model
	Points    int
	Wall      time.Duration
	Projected time.Duration
	PeakRSS   int64 // bytes
	Estimate  int64 // bytes, bake.Estimate
	Workers   int
	ETA       time.Duration // the first progress line's elapsed + time left at or after one minute (0: none)
}

// pairsPerCoreSecond is observer–target pairs (points²) per second per core.
func (r bakeRow) pairsPerCoreSecond() float64 {
	return float64(r.Points) * float64(r.Points) / r.Wall.Seconds() / float64(r.Workers)
}

func runBakeBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench bake", "bench bake [--cases hgt-316,dsm-500,…] [--data ../shared/data] [--out bench/results] [--tmp DIR]", stderr)
	names := make([]string, len(bakeCases))
	for i, c := range bakeCases {
		names[i] = c.Name
	}
	only := fs.String("cases", strings.Join(names, ","), "`cases` to bake")
	data := fs.String("data", "../shared/data", "`folder` of the real DEMs")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	tmp := fs.String("tmp", filepath.Join(os.TempDir(), "pvs-bakebench"), "`folder` for the stores (deleted after each case)")
	budgets := fs.String("budget", "0.1GiB,0.25GiB,0.5GiB,1GiB", "the `budgets` of every bake, in one pass")
	peers2 := fs.String("peers", "../shared/peers", "`folder` of the peers' source (Total_Viewshed is built from it; \"\" to skip)")
	models := fs.String("los", "conservative,sector", "visibility `models` every case is baked with, alternating within each case (conservative, sector, region, region-v2, region-v3, region-v4)")
	tvModels := fs.String("tv-los", "region,region-v3,sector", "visibility `models` the Total_Viewshed crop is baked with, one worker each, the first also with two")
	peerObs := fs.Int("peer-observers", 200, "`observers` timed with GDAL's viewshed and ours on each real window (0: skip)")
	pvsbakeBin := fs.String("pvsbake", "", "a built pvsbake `binary` to time (\"\": build ./cmd/pvsbake, as make does)")
	tvDir := fs.String("tv", "", "a `folder` where --tv-prepare built Total_Viewshed and its input (\"\": build them under --tmp from --peers)")
	tvPrepare := fs.String("tv-prepare", "", "only build Total_Viewshed and its input into this `folder` (to carry to a machine without a compiler or GDAL), then stop")
	tvRaw := fs.Bool("tv-raw", false, "bake the Total_Viewshed crop from its 16-bit RAW (for a pvsbake built without GDAL)")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *tvPrepare != "" {
		if err := prepareTotalViewshed(*peers2, *data, *tvPrepare); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *tvPrepare)
		return nil
	}
	var run []bakeCase
	for _, n := range strings.Split(*only, ",") {
		if n == "" || n == "none" {
			continue
		}
		i := -1
		for j, c := range bakeCases {
			if c.Name == n {
				i = j
			}
		}
		if i < 0 {
			return cli.Usagef("--cases: %q is not one of %s", n, strings.Join(names, ", "))
		}
		run = append(run, bakeCases[i])
	}
	los, err := modelList("--los", *models)
	if err != nil {
		return err
	}
	tvLOS, err := modelList("--tv-los", *tvModels)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*tmp, 0o755); err != nil {
		return err
	}
	bin := *pvsbakeBin
	if bin == "" {
		b, err := buildPvsbake(*tmp, stderr)
		if err != nil {
			return err
		}
		bin = b
	}
	var peers []peerRow
	for _, pc := range peerCases {
		if *peerObs == 0 {
			break
		}
		r, err := peerGDAL(pc, *data, *peerObs)
		if err != nil {
			return fmt.Errorf("GDAL peer on %s: %w", pc.Name, err)
		}
		fmt.Fprintf(stdout, "%s: GDAL %.3f ms per observer, ours %.3f ms (block engine), %.3f ms (per observer), %.3f ms (bitmap): GDAL/ours %.2f×\n",
			pc.Name, r.GDAL, r.Block, r.Ours, r.Bitmap, r.GDAL/r.Block)
		peers = append(peers, r)
	}
	var tv *tvRow
	if *peers2 != "" || *tvDir != "" {
		dir := *tvDir
		var err error
		if dir == "" {
			dir = filepath.Join(*tmp, "tv")
			err = prepareTotalViewshed(*peers2, *data, dir)
		}
		var r tvRow
		if err == nil {
			r, err = measureTotalViewshed(dir, bin, tvLOS, *tvRaw, stderr)
		}
		if err != nil {
			fmt.Fprintf(stdout, "Total_Viewshed peer skipped: %v\n", err)
		} else {
			fmt.Fprintf(stdout, "Total_Viewshed on a %d² UTM crop: %.1f s (CPU %.1f s), one thread on %s\n", r.Size, r.TV.Seconds(), r.TVCPU.Seconds(), r.CPU)
			for _, m := range r.Models {
				fmt.Fprintf(stdout, "  ours, --los %s at --sectors %d, 1 worker: %.1f s (CPU %.1f s), %.2f× Total_Viewshed\n", m.LOS, r.Sectors, m.Wall.Seconds(), m.CPU.Seconds(), m.Wall.Seconds()/r.TV.Seconds())
			}
			tv = &r
		}
	}
	dir, err := newResultsSubdir(*out, "bake-"+machineTag())
	if err != nil {
		return err
	}
	// The report is written again after every case, so that a long run
	// stopped early keeps what it measured.
	var rows []bakeRow
	if err := writeBakeResults(dir, rows, peers, tv, *budgets); err != nil {
		return err
	}
	for _, c := range run {
		for _, m := range los {
			row, err := bakeOne(c, m, bin, *data, *tmp, *budgets, stderr)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
			fmt.Fprintf(stdout, "%s, %s model: %d points in %s (projected %s), peak RSS %s (estimate %s), %.3g pairs/s per core\n",
				c.Name, m, row.Points, row.Wall.Round(100*time.Millisecond), row.Projected.Round(time.Second),
				compress.FormatBytes(row.PeakRSS), compress.FormatBytes(row.Estimate), row.pairsPerCoreSecond())
			rows = append(rows, row)
			if err := writeBakeResults(dir, rows, peers, tv, *budgets); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

var (
	bakedRE     = regexp.MustCompile(`baked (\d+) points in ([0-9.]+) s \(\d+ points/s, (\d+) workers\)`)
	projectedRE = regexp.MustCompile(`projected ([0-9hms.µ]+) (?:and [0-9.]+ [kMG]?B of memory at the peak )?with`)
	progressRE  = regexp.MustCompile(`after ([0-9hms.]+), about ([0-9hms.]+) left`)
	kernelsRE   = regexp.MustCompile(`, ([a-z0-9]+) kernels\)`)
)

// bakeRun is one `pvsbake bake` run as a child process: what it printed —
// its points, workers and wall time (the bake's own, after loading the
// DEM), the projection and the kernels of its first line — and what the
// system measured: CPU (user + system of the whole process) and peak RSS
// in bytes.
type bakeRun struct {
	Points, Workers int
	Wall, Projected time.Duration
	Kernels         string
	CPU             time.Duration
	PeakRSS         int64
	Stderr          string
}

// runBake runs cmd, a `pvsbake bake` whose Stdout and Stderr are unset,
// copying its stderr to log (nil: nowhere). Errors: the bake failed
// (with its last line) or printed no "baked" line.
func runBake(cmd *exec.Cmd, log io.Writer) (bakeRun, error) {
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if log != nil {
		cmd.Stderr = io.MultiWriter(&se, log)
	}
	peak, err := runPeakRSS(cmd)
	r := bakeRun{Stderr: se.String(), PeakRSS: peak}
	if err != nil {
		return r, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLine(r.Stderr))
	}
	m := bakedRE.FindStringSubmatch(so.String())
	if m == nil {
		return r, fmt.Errorf("%s printed %q", strings.Join(cmd.Args, " "), so.String())
	}
	sec, _ := strconv.ParseFloat(m[2], 64)
	r.Points, _ = strconv.Atoi(m[1])
	r.Workers, _ = strconv.Atoi(m[3])
	r.Wall = time.Duration(sec * float64(time.Second))
	if p := projectedRE.FindStringSubmatch(r.Stderr); p != nil {
		r.Projected, _ = time.ParseDuration(p[1])
	}
	if k := kernelsRE.FindStringSubmatch(r.Stderr); k != nil {
		r.Kernels = k[1]
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, nil
}

// modelList splits the comma-separated visibility models of flag, each a
// name horizon.ParseModel takes; a bad one is a usage error.
func modelList(flag, list string) ([]string, error) {
	var los []string
	for _, m := range strings.Split(list, ",") {
		if _, _, err := horizon.ParseModel(m); err != nil {
			return nil, cli.Usagef("%s %q: want %s", flag, m, horizon.ModelNames())
		}
		los = append(los, m)
	}
	return los, nil
}

// bakeOne runs pvsbake bake for c with visibility model los as a child
// process and measures it.
func bakeOne(c bakeCase, los, bin, data, tmp, budgets string, log io.Writer) (bakeRow, error) {
	dem, err := caseDEM(c, bin, data, tmp, log)
	if err != nil {
		return bakeRow{}, err
	}
	opts := heightmap.Options{}
	if c.Window != "" {
		w, err := heightmap.ParseWindow(c.Window)
		if err != nil {
			return bakeRow{}, err
		}
		opts.Window = w
	}
	g, err := heightmap.Load(dem, opts)
	if err != nil {
		return bakeRow{}, err
	}
	p := horizon.DefaultParams()
	p.MaxDistance = c.MaxDistance
	p.LOS, p.Version, _ = horizon.ParseModel(los)
	if c.Budgets != "" {
		budgets = c.Budgets
	}
	outputs := len(strings.Split(budgets, ","))
	workers := runtime.GOMAXPROCS(0)
	row := bakeRow{bakeCase: c, LOS: los, Points: g.Width * g.Height, Workers: workers,
		Estimate: bake.Estimate(g.Width, g.Height, p, g.Dx, g.Dy, workers, outputs)}
	args := []string{"bake", dem, "-o", filepath.Join(tmp, c.Name), "--budget", budgets, "--progress", "20s", "--los", los, "--yes"}
	if c.Window != "" {
		args = append(args, "--window", c.Window)
	}
	if c.MaxDistance > 0 {
		args = append(args, "--max-distance", strconv.FormatFloat(c.MaxDistance, 'f', -1, 64))
	}
	br, err := runBake(exec.Command(bin, args...), log)
	defer removeStores(tmp, c.Name)
	if err != nil {
		return row, err
	}
	row.Wall, row.Workers, row.PeakRSS, row.Projected = br.Wall, br.Workers, br.PeakRSS, br.Projected
	for _, m := range progressRE.FindAllStringSubmatch(br.Stderr, -1) {
		el, err1 := time.ParseDuration(m[1])
		left, err2 := time.ParseDuration(m[2])
		if err1 == nil && err2 == nil && el >= time.Minute {
			row.ETA = el + left
			break
		}
	}
	return row, nil
}

func removeStores(tmp, name string) {
	files, _ := filepath.Glob(filepath.Join(tmp, name+"-*.pvs"))
	for _, f := range files {
		os.Remove(f)
	}
}

// writeBakeResults writes bake.csv and README.md into dir.
func writeBakeResults(dir string, rows []bakeRow, peers []peerRow, tv *tvRow, budgets string) error {
	err := atomicfile.Write(filepath.Join(dir, "bake.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"case", "los", "dem", "window", "max_distance_m", "points", "wall_s", "projected_s", "eta_at_1min_s", "peak_rss_bytes", "estimate_bytes", "workers", "pairs_per_core_s", "before"})
		for _, r := range rows {
			cw.Write([]string{r.Name, r.LOS, r.DEM, r.Window, fmt.Sprint(r.MaxDistance), fmt.Sprint(r.Points),
				fmt.Sprintf("%.1f", r.Wall.Seconds()), fmt.Sprintf("%.0f", r.Projected.Seconds()), fmt.Sprintf("%.0f", r.ETA.Seconds()), fmt.Sprint(r.PeakRSS),
				fmt.Sprint(r.Estimate), fmt.Sprint(r.Workers), fmt.Sprintf("%.4g", r.pairsPerCoreSecond()), r.Before})
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "README.md"), func(w io.Writer) error {
		fmt.Fprintf(w, "# Bake benchmark, %s\n\n", time.Now().UTC().Format("2006-01-02"))
		fmt.Fprintf(w, "`go run ./bench bake` on %s (%d cores, Go %s): every case baked by `pvsbake bake` as a child process at S = 1024, observer and target 1.8 m, budgets %s in one pass. Wall is the bake's own time (after loading the DEM); peak RSS is the child's (rusage); the estimate is `bake.Estimate`, which the baker checks against available memory; projected is what `pvsbake bake` printed up front from its calibration; ETA is elapsed + time left on its first progress line at or after one minute (— for bakes shorter than that). Pairs are points² (every observer against every cell) per second per worker.\n\n",
			cpuModel(), runtime.NumCPU(), strings.TrimPrefix(runtime.Version(), "go"), budgets)
		fmt.Fprintln(w, "| case | model | window | max distance | points | wall | projected | ETA at 1 min | peak RSS | estimate | pairs/s per core | ns per pair per core | before |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range rows {
			win, md := r.Window, "—"
			if win == "" {
				win = "whole"
			}
			if r.MaxDistance > 0 {
				md = fmt.Sprintf("%g m", r.MaxDistance)
			}
			pps := r.pairsPerCoreSecond()
			eta := "—"
			if r.ETA > 0 {
				eta = fmt.Sprintf("%s (%+.0f%%)", r.ETA.Round(time.Second), 100*(r.ETA.Seconds()/r.Wall.Seconds()-1))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %.3g | %.2f | %s |\n", r.Name, r.LOS, win, md, r.Points,
				r.Wall.Round(100*time.Millisecond), r.Projected.Round(time.Second), eta, compress.FormatBytes(r.PeakRSS),
				compress.FormatBytes(r.Estimate), pps, 1e9/pps, r.Before)
		}
		// The models' ratio per case, from the bakes run one after the other.
		first := true
		for i, r := range rows {
			for _, q := range rows[:i] {
				if q.Name == r.Name && q.LOS == "conservative" && r.LOS == "sector" {
					if first {
						fmt.Fprint(w, "\nConservative ÷ sector, wall time of the two bakes of each case (run one after the other):\n\n")
						first = false
					}
					fmt.Fprintf(w, "- %s: %.2f×\n", r.Name, q.Wall.Seconds()/r.Wall.Seconds())
				}
			}
		}
		if len(peers) > 0 {
			fmt.Fprintf(w, "\n## GDAL's viewshed, side by side\n\nOne thread, the same grid and observers (spread over the window), interleaved: `GDALViewshedGenerate` in memory through our cgo binding (`gdal.Viewshed`, no curvature, output read back), against the bake's per-point work — the block engine (`horizon.BlockWorker.Classify` + `quadpvs.Encoder.EncodeBlockTrees` on the observer's block, divided by its points; kernels: %s) and the per-observer engine it replaced (`horizon.Worker.Classify` + `quadpvs.Encoder.EncodeLevels`) — and our full-grid bitmap (`horizon.Worker.Viewshed`). Milliseconds per observer.\n\n", horizon.SIMD())
			fmt.Fprintln(w, "| window | observers | GDAL | ours, block engine | ours, per observer | ours, bitmap | GDAL ÷ ours (block engine) |")
			fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
			for _, r := range peers {
				fmt.Fprintf(w, "| %s %s | %d | %.3f | %.3f | %.3f | %.3f | %.2f× |\n", r.DEM, r.Window, r.Observers, r.GDAL, r.Block, r.Ours, r.Bitmap, r.GDAL/r.Block)
			}
		}
		if tv != nil {
			writeTVTable(w, tv)
		}
		return nil
	})
}

// writeTVTable writes the Total_Viewshed comparison as a section of the
// bake benchmark's report.
func writeTVTable(w io.Writer, tv *tvRow) {
	fmt.Fprintf(w, "\n## Total_Viewshed (Tabik et al. 2015), side by side\n\nBuilt from `../shared/peers/Total_Viewshed` (`make compute`, g++ with OpenMP, linked statically). Input: columns and rows 300… of `N44W072.hgt` warped to UTM 19N at 80 m (`gdalwarp -t_srs EPSG:32619 -tr 80 80 -r bilinear`), cropped to %d² cells, as ENVI float32. Its time is its second run (the first writes its per-sector caches); its 180 axes are swept both ways, 360 one-degree sectors; observer 1.8 m; it computes each point's visible area, not the sets. Ours: `pvsbake bake` of the same crop (%s) at `--sectors %d` (equal angular resolution), one 1 GiB budget, one model after the other after Total_Viewshed. One thread and one worker are timed on two cores (pinned with taskset on a larger machine): Total_Viewshed then runs one thread, and our bake merges and writes on a second goroutine beside its one worker. CPU is user + system time of the whole process.\n\n", tv.Size, tv.Input, tv.Sectors)
	fmt.Fprintln(w, "| CPU | kernels | Total_Viewshed, 1 thread | its CPU | model | ours, 1 worker | its CPU | projected | ours ÷ Total_Viewshed (wall, CPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, m := range tv.Models {
		fmt.Fprintf(w, "| %s | %s | %.1f s | %.1f s | %s | %.1f s | %.1f s | %s | %.2f×, %.2f× |\n", tv.CPU, tv.Kernels, tv.TV.Seconds(), tv.TVCPU.Seconds(), m.LOS,
			m.Wall.Seconds(), m.CPU.Seconds(), m.Projected.Round(time.Second), m.Wall.Seconds()/tv.TV.Seconds(), m.CPU.Seconds()/tv.TVCPU.Seconds())
	}
	if len(tv.Models) > 0 && tv.Ours2 > 0 {
		fmt.Fprintf(w, "\n%s model at two workers: %.1f s, the second core's speed-up %.2f×.\n", tv.Models[0].LOS, tv.Ours2.Seconds(), tv.Models[0].Wall.Seconds()/tv.Ours2.Seconds())
	}
	if tv.TVAll > 0 {
		fmt.Fprintf(w, "\nAll %d cores: Total_Viewshed's own %d threads %.2f s (CPU %.1f s); ours, %s model, %d workers: %.2f s (CPU %.1f s), %.2f× Total_Viewshed.\n",
			tv.Cores, tv.TVThreads, tv.TVAll.Seconds(), tv.TVAllCPU.Seconds(), tv.Models[0].LOS, tv.Workers, tv.OursAll.Seconds(), tv.OursCPU.Seconds(), tv.OursAll.Seconds()/tv.TVAll.Seconds())
	}
}

// peerCases are the windows GDAL's viewshed is timed on.
var peerCases = []bakeCase{bakeCases[0], bakeCases[1]}

// peerRow is one side-by-side timing, milliseconds per observer.
type peerRow struct {
	bakeCase
	Observers                 int
	GDAL, Ours, Bitmap, Block float64
}

// peerGDAL times GDAL's viewshed and ours from the same observers of c's
// window, one after the other on this goroutine's thread.
func peerGDAL(c bakeCase, data string, observers int) (peerRow, error) {
	w, err := heightmap.ParseWindow(c.Window)
	if err != nil {
		return peerRow{}, err
	}
	g, err := heightmap.Load(filepath.Join(data, c.DEM), heightmap.Options{Window: w})
	if err != nil {
		return peerRow{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	gv, err := gdal.NewViewshed(g)
	if err != nil {
		return peerRow{}, err
	}
	defer gv.Close()
	p := horizon.DefaultParams()
	p.LOS = horizon.LOSConservative // a point model beside GDAL's, which judges sample points
	m, err := horizon.New(bake.Terrain(g), p)
	if err != nil {
		return peerRow{}, err
	}
	geo, err := quadpvs.NewGeometry(g.Width, g.Height)
	if err != nil {
		return peerRow{}, err
	}
	wk, enc, bw := m.NewWorker(), quadpvs.NewEncoder(geo), m.NewBlockWorker()
	lv := horizon.NewLevels(g.Width, g.Height)
	var tree quadpvs.Tree
	var blk horizon.Block
	var trees [horizon.Lanes + horizon.Unions]quadpvs.Tree
	out := make([]byte, g.Width*g.Height)
	bm := horizon.NewBitmap(g.Width, g.Height)
	var tg, to, tb, tk time.Duration
	points := g.Width * g.Height
	for i := range observers + 5 {
		pt := int(int64(i) * int64(points) / int64(observers+5))
		col, row := (pt%g.Width*7919+pt/g.Width)%g.Width, pt/g.Width
		t0 := time.Now()
		if err := gv.Viewshed(col, row, p.ObserverHeight, p.TargetHeight, out); err != nil {
			return peerRow{}, err
		}
		t1 := time.Now()
		if err := wk.Classify(col, row, lv, nil); err != nil {
			return peerRow{}, err
		}
		if err := enc.EncodeLevels(lv, &tree); err != nil {
			return peerRow{}, err
		}
		t2 := time.Now()
		if bm, err = wk.Viewshed(col, row, bm); err != nil {
			return peerRow{}, err
		}
		t3 := time.Now()
		// The observer's block in the block engine, as the bake runs it
		// (16 points and the block's unions), per point.
		bc, br := col&^(horizon.BlockSide-1), row&^(horizon.BlockSide-1)
		if err := bw.Classify(bc, br, nil, &blk); err != nil {
			return peerRow{}, err
		}
		enc.EncodeBlockTrees(&blk, blk.Points, 1<<horizon.Unions-1, &trees)
		t4 := time.Now()
		if i >= 5 { // the first few warm the caches
			tg, to, tb = tg+t1.Sub(t0), to+t2.Sub(t1), tb+t3.Sub(t2)
			tk += t4.Sub(t3) / time.Duration(bits.OnesCount16(blk.Points))
		}
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(observers) }
	return peerRow{bakeCase: c, Observers: observers, GDAL: ms(tg), Ours: ms(to), Bitmap: ms(tb), Block: ms(tk)}, nil
}

// tvRow is the Total_Viewshed comparison: wall and CPU times (user +
// system, the whole process: our bake's merging and writing run beside
// its worker). Its one-thread figures are taken on two cores (pinned with
// taskset where the machine has more), where Total_Viewshed runs one
// thread (it starts one less than the processors it is given) and our
// one worker has a second core for merging and writing, as on a 2-core
// machine.
type tvRow struct {
	Size, Sectors int
	CPU           string // the processor's model name
	Kernels       string // the block engine's kernels in our bakes
	Input         string // what our bakes read: "GeoTIFF" or "16-bit RAW"
	TV, TVCPU     time.Duration
	Models        []tvModel     // one worker, one per model
	Ours2         time.Duration // the default model, two workers
	// All cores, where the machine has more than two: Total_Viewshed's own
	// threads and ours at one worker per core.
	Cores              int
	TVAll, OursAll     time.Duration
	TVAllCPU, OursCPU  time.Duration
	TVThreads, Workers int
}

// tvModel is our bake of the crop with one visibility model, one worker.
type tvModel struct {
	LOS       string
	Wall      time.Duration
	CPU       time.Duration
	Projected time.Duration
}

// tvSectors is our bake's S on the Total_Viewshed crop: equal angular
// resolution, since its 180 axes are swept both ways (360 one-degree
// sectors).
const tvSectors = 360

// tvCrop is the side of the Total_Viewshed crop in cells.
const tvCrop = 316

// prepareTotalViewshed builds Tabik et al.'s total-viewshed program from
// peers/Total_Viewshed into dir (linked statically, so that dir can be
// carried to a machine without a compiler) and writes its input there: a
// UTM crop of the HGT tile as ENVI float32 (input/), the same crop as
// crop.tif and as a 16-bit RAW heightmap (crop.r16, with crop-r16.txt
// holding pvsbake's --cell-size and --height-range for it). Any missing
// tool or failed step is returned as an error (the peer is then skipped).
func prepareTotalViewshed(peers, data, dir string) error {
	src := filepath.Join(peers, "Total_Viewshed")
	if _, err := os.Stat(filepath.Join(src, "Makefile")); err != nil {
		return err
	}
	for _, tool := range []string{"g++", "make", "gdalwarp", "gdal_translate"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found (apt-get install g++ make gdal-bin)", tool)
		}
	}
	os.RemoveAll(dir)
	for _, d := range []string{filepath.Join(dir, "obj"), filepath.Join(dir, "input"), filepath.Join(dir, "output")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files, _ := os.ReadDir(src)
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			return err
		}
	}
	runIn := func(name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var se bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &se
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLine(se.String()))
		}
		return nil
	}
	if err := runIn("make", "compute", "LFLAGS=-fopenmp -static"); err != nil {
		return err
	}
	hgt, _ := filepath.Abs(filepath.Join(data, "N44W072.hgt"))
	steps := [][]string{
		{"gdal_translate", "-q", "-srcwin", "300", "300", "400", "400", hgt, "src.tif"},
		{"gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:32619", "-tr", "80", "80", "-r", "bilinear", "src.tif", "utm.tif"},
		{"gdal_translate", "-q", "-srcwin", "20", "20", fmt.Sprint(tvCrop), fmt.Sprint(tvCrop), "utm.tif", "crop.tif"},
		{"gdal_translate", "-q", "-of", "ENVI", "-ot", "Float32", "crop.tif", "input/4900000_0300000_080.flt"},
	}
	for _, s := range steps {
		if err := runIn(s[0], s[1:]...); err != nil {
			return err
		}
	}
	g, err := heightmap.Load(filepath.Join(dir, "crop.tif"), heightmap.Options{})
	if err != nil {
		return err
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, z := range g.Elev {
		lo, hi = min(lo, z), max(hi, z)
	}
	raw := make([]byte, 2*len(g.Elev))
	for i, z := range g.Elev {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(math.Round(float64(z-lo)/float64(hi-lo)*65535)))
	}
	if err := os.WriteFile(filepath.Join(dir, "crop.r16"), raw, 0o644); err != nil {
		return err
	}
	for _, f := range []string{"src.tif", "utm.tif"} {
		os.Remove(filepath.Join(dir, f))
	}
	return os.WriteFile(filepath.Join(dir, "crop-r16.txt"), []byte(fmt.Sprintf("--cell-size %g --height-range %g,%g\n", g.Dx, lo, hi)), 0o644)
}

// measureTotalViewshed runs the program prepared in dir on its crop (its
// second run: the first writes its per-sector caches) and bakes the same
// crop with our baker bin at tvSectors, one worker, for each of models
// (then the first model at two workers, and at one worker per core where
// the machine has more than two), reading crop.tif, or crop.r16 when raw.
func measureTotalViewshed(dir, bin string, models []string, raw bool, log io.Writer) (tvRow, error) {
	r := tvRow{Size: tvCrop, Sectors: tvSectors, CPU: cpuModel(), Input: "GeoTIFF", Cores: runtime.NumCPU()}
	input := []string{filepath.Join(dir, "crop.tif")}
	if raw {
		b, err := os.ReadFile(filepath.Join(dir, "crop-r16.txt"))
		if err != nil {
			return r, err
		}
		input = append([]string{filepath.Join(dir, "crop.r16")}, strings.Fields(string(b))...)
		r.Input = "16-bit RAW"
	}
	// pin runs a command on the first two cores where there are more: the
	// one-thread figures need taskset there (Total_Viewshed would start a
	// thread per core but one).
	taskset := ""
	if runtime.NumCPU() > 2 {
		var err error
		if taskset, err = exec.LookPath("taskset"); err != nil {
			return r, fmt.Errorf("taskset not found (apt-get install util-linux): the one-thread figures on %d cores need it", runtime.NumCPU())
		}
	}
	pin := func(two bool, name string, args ...string) *exec.Cmd {
		if two && taskset != "" {
			return exec.Command(taskset, append([]string{"-c", "0,1", name}, args...)...)
		}
		return exec.Command(name, args...)
	}
	tv := func(two bool) (time.Duration, time.Duration, error) {
		var wall, cpu time.Duration
		for range 2 { // the first run writes the per-sector caches
			cmd := pin(two, "./comp.out", "4900000_0300000_080.flt", "-t0", "-H1.8")
			cmd.Dir = dir
			var se bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &se
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return 0, 0, fmt.Errorf("Total_Viewshed: %w: %s", err, lastLine(se.String()))
			}
			wall, cpu = time.Since(start), cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()
		}
		return wall, cpu, nil
	}
	ours := func(two bool, los string, workers int) (tvModel, error) {
		args := append([]string{"bake"}, input...)
		args = append(args, "-o", filepath.Join(dir, "ours.pvs"), "--budget", "1GiB",
			"--sectors", fmt.Sprint(tvSectors), "--workers", fmt.Sprint(workers), "--los", los)
		br, err := runBake(pin(two, bin, args...), nil)
		os.Remove(filepath.Join(dir, "ours.pvs"))
		if err != nil {
			return tvModel{}, fmt.Errorf("our bake of the crop: %w", err)
		}
		r.Kernels = br.Kernels
		fmt.Fprintf(log, "Total_Viewshed crop, --los %s, %d workers: %.1f s\n", los, workers, br.Wall.Seconds())
		return tvModel{LOS: los, Wall: br.Wall, CPU: br.CPU, Projected: br.Projected}, nil
	}
	var err error
	if r.TV, r.TVCPU, err = tv(true); err != nil {
		return r, err
	}
	for _, los := range models {
		o, err := ours(true, los, 1)
		if err != nil {
			return r, err
		}
		r.Models = append(r.Models, o)
	}
	o, err := ours(true, models[0], 2)
	if err != nil {
		return r, err
	}
	r.Ours2 = o.Wall
	if runtime.NumCPU() > 2 {
		if r.TVAll, r.TVAllCPU, err = tv(false); err != nil {
			return r, err
		}
		r.TVThreads = runtime.NumCPU() - 1
		o, err := ours(false, models[0], runtime.NumCPU())
		if err != nil {
			return r, err
		}
		r.OursAll, r.OursCPU, r.Workers = o.Wall, o.CPU, runtime.NumCPU()
	}
	return r, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
