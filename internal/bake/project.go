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

// Project times cfg's per-point work on about samples points — blocks of
// 16 (horizon's block engine) spread evenly over the grid, one goroutine —
// and projects the wall time of Run(cfg): per-point cost × points ÷
// workers. Nothing is added for the merge up the hierarchy: it runs beside
// the workers, and the bake meets blocks tile by tile, sharing early-stop
// bounds, where spread blocks each build their own. It returns early with
// what it has when ctx ends.
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
	bw := model.NewBlockWorker()
	enc := quadpvs.NewEncoder(g)
	mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	var blk horizon.Block
	var trees [horizon.Lanes + horizon.Unions]quadpvs.Tree
	var capped quadpvs.Tree
	var capper quadpvs.Capper
	bc, br := (dem.Width+horizon.BlockSide-1)/horizon.BlockSide, (dem.Height+horizon.BlockSide-1)/horizon.BlockSide
	blocks := bc * br
	nb := max(1, min((samples+horizon.Lanes-1)/horizon.Lanes, blocks))
	start := time.Now()
	n := 0
	for i := range nb {
		if ctx.Err() != nil {
			break
		}
		// A low-discrepancy spread: the i-th of nb blocks in row-major
		// order, its column scrambled by a large prime stride.
		p := int(int64(i) * int64(blocks) / int64(nb))
		x, y := (p%bc*7919+p/bc)%bc, p/bc
		if err := bw.Classify(x*horizon.BlockSide, y*horizon.BlockSide, mask, &blk); err != nil {
			return Projection{}, err
		}
		enc.EncodeBlockTrees(&blk, blk.Points, 1<<horizon.Unions-1, &trees)
		for b := range horizon.Lanes {
			if blk.Points&(1<<b) == 0 {
				continue
			}
			for _, o := range cfg.Outputs {
				o.Cap.Apply(&capper, g, &capped, &trees[b])
			}
			n++
		}
	}
	if n == 0 {
		return Projection{}, ctx.Err()
	}
	per := time.Since(start) / time.Duration(n)
	points := dem.Width * dem.Height
	wall := time.Duration(float64(per) * float64(points) / float64(workers))
	return Projection{Samples: n, PerPoint: per, Wall: wall}, nil
}
