package bake

import (
	"context"
	"runtime"
	"time"

	"frontiersets/horizon"
	"frontiersets/internal/cli"
	"frontiersets/quadpvs"
)

// hierarchyShare is the bake's cost beyond the per-point PVSs (merging up the
// quad hierarchy, capping, writing) as a share of the per-point work,
// measured on the 316² HGT window with four budgets (pprof of bake.Run).
const hierarchyShare = 0.25

// Projection is a bake's projected wall time, from a short calibration.
type Projection struct {
	Samples  int           // points timed
	PerPoint time.Duration // one point's PVS (visibility, quadtree encoding, one cap per output) on one core
	Wall     time.Duration // projected wall time of the whole bake
}

// Project times cfg's per-point work on samples points spread evenly over
// the grid (one goroutine) and projects the wall time of Run(cfg): per-point
// cost × points × (1 + hierarchyShare) ÷ workers. It returns early with what
// it has when ctx ends.
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
	wall := time.Duration(float64(per) * float64(points) * (1 + hierarchyShare) / float64(workers))
	return Projection{Samples: n, PerPoint: per, Wall: wall}, nil
}
