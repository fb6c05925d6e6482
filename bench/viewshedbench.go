package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/quadpvs"
	"github.com/frontiersets/frontiersets/viewshed"
)

// runViewshedBench is `go run ./bench viewsheds`: a cumulative viewshed of
// many random observers from a store (viewshed.Cumulative, what
// `frontierq cumulative` runs), side by side with GDAL's viewshed run per
// observer and summed, and the superset check: every cell GDAL, or exact
// line of sight (internal/losref), calls visible from an observer is one
// the observer's stored PVS counts.
func runViewshedBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench viewsheds", "bench viewsheds --store S [--observers 10000] [--gdal 200] [--exact 10]", stderr)
	store := fs.String("store", "", "the `store` (e.g. the DSM 500² window's)")
	nObs := fs.Int("observers", 10000, "random `observers` of the cumulative viewshed")
	nGDAL := fs.Int("gdal", 200, "of which `n` also through GDAL's viewshed")
	nExact := fs.Int("exact", 10, "of which `n` also through exact line of sight (quadratic: slow)")
	seed := fs.Uint64("seed", 1, "random `seed`")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *store == "" || *nObs < 1 || *nGDAL < 0 || *nExact < 0 || *nGDAL > *nObs || *nExact > *nObs {
		return cli.Usagef("viewsheds needs --store, --observers ≥ 1 and --gdal, --exact at most --observers")
	}
	s, err := compress.Open(*store)
	if err != nil {
		return err
	}
	defer s.Close()
	h, g := s.Hierarchy, s.Hierarchy.G
	rng := rand.New(rand.NewPCG(*seed, 7))
	obs := make([][2]int, 0, *nObs)
	for len(obs) < *nObs {
		c, r := rng.IntN(s.Width), rng.IntN(s.Height)
		if s.Nodata == nil || !s.Nodata[r*s.Width+c] {
			obs = append(obs, [2]int{c, r})
		}
	}
	// The cumulative viewshed, on one core and on all (best of three).
	cumulative := func(workers int) ([]uint32, time.Duration) {
		best := time.Duration(1 << 62)
		var counts []uint32
		for range 3 {
			start := time.Now()
			c := viewshed.NewCumulative(g)
			c.AddCells(h, obs, workers)
			counts = c.Counts(counts)
			best = min(best, time.Since(start))
		}
		return counts, best
	}
	counts, one := cumulative(1)
	_, all := cumulative(runtime.GOMAXPROCS(0))
	if err := h.Err(); err != nil {
		return err
	}
	seen := 0
	for _, v := range counts {
		if v > 0 {
			seen++
		}
	}
	fmt.Fprintf(stdout, "cumulative viewshed of %d observers on %d×%d: %.3f s on one core, %.3f s on %d\n", len(obs), s.Width, s.Height, one.Seconds(), all.Seconds(), runtime.GOMAXPROCS(0))

	// GDAL's viewshed, per observer, summed; and the superset check.
	p := s.Params.Horizon()
	grid := &heightmap.Grid{Width: s.Width, Height: s.Height, Elev: s.Elev, Dx: s.DxM, Dy: s.DyM}
	var gdalTime time.Duration
	var gdalVisible, gdalMissed, exactVisible, exactMissed int64
	var w quadpvs.Walker
	var bm = make([]byte, s.Width*s.Height)
	if *nGDAL > 0 {
		gv, err := gdal.NewViewshed(grid)
		if err != nil {
			return err
		}
		defer gv.Close()
		for _, o := range obs[:*nGDAL] {
			start := time.Now()
			if err := gv.Viewshed(o[0], o[1], p.ObserverHeight, p.TargetHeight, bm); err != nil {
				return err
			}
			gdalTime += time.Since(start)
			t := h.PVS(h.QuadIndex(0, o[0], o[1]))
			mine := w.Bitmap(g, &t, horizon.NewBitmap(s.Width, s.Height))
			for i, v := range bm {
				if v != 0 {
					gdalVisible++
					if !mine.Visible(i%s.Width, i/s.Width) {
						gdalMissed++
					}
				}
			}
		}
	}
	lg := losref.Grid{Width: s.Width, Height: s.Height, Elev: s.Elev}
	for _, o := range obs[:*nExact] {
		t := h.PVS(h.QuadIndex(0, o[0], o[1]))
		mine := w.Bitmap(g, &t, horizon.NewBitmap(s.Width, s.Height))
		for i, v := range losref.Viewshed(lg, o[0], o[1], p.ObserverHeight, p.TargetHeight) {
			if v && (s.Nodata == nil || !s.Nodata[i]) {
				exactVisible++
				if !mine.Visible(i%s.Width, i/s.Width) {
					exactMissed++
				}
			}
		}
	}
	perGDAL := 0.0
	if *nGDAL > 0 {
		perGDAL = gdalTime.Seconds() / float64(*nGDAL)
	}
	fmt.Fprintf(stdout, "GDAL viewshed: %.1f ms per observer (%d timed), %.0f s projected for %d; cells GDAL calls visible that the PVS hides: %d of %d; exact line of sight: %d of %d\n",
		1e3*perGDAL, *nGDAL, perGDAL*float64(len(obs)), len(obs), gdalMissed, gdalVisible, exactMissed, exactVisible)

	dir, err := newResultsSubdir(*out, "viewsheds")
	if err != nil {
		return err
	}
	csv := fmt.Sprintf("store,width,height,model,observers,cumulative_1core_s,cumulative_all_s,cores,cells_seen,gdal_observers,gdal_ms_per_observer,gdal_projected_s,gdal_visible,gdal_visible_pvs_hidden,exact_observers,exact_visible,exact_visible_pvs_hidden\n%s,%d,%d,%s,%d,%.4f,%.4f,%d,%d,%d,%.2f,%.1f,%d,%d,%d,%d,%d\n",
		filepath.Base(*store), s.Width, s.Height, s.Params.ModelName(), len(obs), one.Seconds(), all.Seconds(), runtime.GOMAXPROCS(0), seen,
		*nGDAL, 1e3*perGDAL, perGDAL*float64(len(obs)), gdalVisible, gdalMissed, *nExact, exactVisible, exactMissed)
	if err := os.WriteFile(filepath.Join(dir, "viewsheds.csv"), []byte(csv), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Cumulative viewsheds from a store\n\n`go run ./bench viewsheds %s`, %s.\n\n", strings.Join(args, " "), time.Now().Format("2006-01-02"))
	fmt.Fprintf(&b, "Store `%s`: %d×%d cells of %.3g × %.3g m, visibility model %s, observer %.3g m, target %.3g m. %d random observers (cells with data, seed %d).\n\n",
		filepath.Base(*store), s.Width, s.Height, s.DxM, s.DyM, s.Params.ModelName(), p.ObserverHeight, p.TargetHeight, len(obs), *seed)
	fmt.Fprintf(&b, "| what | figure |\n|---|---|\n")
	fmt.Fprintf(&b, "| cumulative viewshed from the store, one core (best of 3) | %.3f s |\n", one.Seconds())
	fmt.Fprintf(&b, "| the same on %d cores | %.3f s |\n", runtime.GOMAXPROCS(0), all.Seconds())
	fmt.Fprintf(&b, "| cells some observer may see | %d of %d |\n", seen, len(counts))
	fmt.Fprintf(&b, "| GDAL viewshed (GDALViewshedGenerate, in memory), per observer | %.1f ms (%d observers timed) |\n", 1e3*perGDAL, *nGDAL)
	fmt.Fprintf(&b, "| GDAL projected for all %d observers, summed | %.0f s |\n", len(obs), perGDAL*float64(len(obs)))
	fmt.Fprintf(&b, "| cells GDAL calls visible that the stored PVS hides | %d of %d |\n", gdalMissed, gdalVisible)
	fmt.Fprintf(&b, "| cells exact line of sight calls visible that the stored PVS hides | %d of %d (%d observers) |\n", exactMissed, exactVisible, *nExact)
	b.WriteString("\nThe superset property (every cell another method calls visible is counted) holds exactly only for a store of the conservative model (`--los conservative`); the sector model (the thesis's) may hide cells that exact line of sight sees, and GDAL's viewshed is itself an approximation of line of sight (its own interpolation), so a few of its visible cells may be ones both exact line of sight and the conservative model hide.\n")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}
