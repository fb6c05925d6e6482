package bake

import (
	"context"
	"runtime"
	"time"

	"frontiersets/horizon"
	"frontiersets/internal/cli"
	"frontiersets/quadpvs"
)

// Projection is a bake's projected wall time, from a short calibration.
type Projection struct {
	Samples  int           // points timed
	PerPoint time.Duration // one point's PVS (visibility, quadtree encoding, one cap per output) on one core
	Wall     time.Duration // projected wall time of the whole bake
}

// Project times cfg's per-point work on samples points spread evenly over
// the grid (one goroutine) and projects the wall time of Run(cfg): per-point
// cost × points ÷ workers. Nothing is added for the merge up the hierarchy:
// it runs beside the workers, and spread points cost a little more than the
// bake's, which meets them tile by tile and shares early-stop bounds
// (horizon's band). Against `go run ./bench bake` (2026-11-22-6, four
// budgets, two workers) the bakes took 0.84–1.07 of this projection; with
// a 25% share for the merge, as before, they took 0.67–0.86. It returns early
// with what it has when ctx ends.
func Project(ctx context.Context, cfg Config, samples int) (Projection, error) {
	dem := cfg.DEM
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return Projection{}, err
	}
	model, err := horizon.New(cli.Terrain(dem), cfg.Params)
	if err != nil {
		return Projection{}, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	wk := model.NewWorker()
	enc := quadpvs.NewEncoder(g)
	lv := horizon.NewLevels(dem.Width, dem.Height)
	mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	var t, capped quadpvs.Tree
	var capper quadpvs.Capper
	points := dem.Width * dem.Height
	samples = max(1, min(samples, points))
	start := time.Now()
	n := 0
	for i := range samples {
		if ctx.Err() != nil {
			break
		}
		// A low-discrepancy spread: the i-th of samples points in
		// row-major order, its column scrambled by a large prime stride.
		p := int(int64(i) * int64(points) / int64(samples))
		col, row := (p%dem.Width*7919+p/dem.Width)%dem.Width, p/dem.Width
		if err := wk.Classify(col, row, lv, mask); err != nil {
			return Projection{}, err
		}
		if err := enc.EncodeLevels(lv, &t); err != nil {
			return Projection{}, err
		}
		for _, o := range cfg.Outputs {
			o.Cap.Apply(&capper, g, &capped, &t)
		}
		n++
	}
	if n == 0 {
		return Projection{}, ctx.Err()
	}
	per := time.Since(start) / time.Duration(n)
	wall := time.Duration(float64(per) * float64(points) / float64(workers))
	return Projection{Samples: n, PerPoint: per, Wall: wall}, nil
}
