package bake

import (
	"context"
	"runtime"
	"time"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Projection is a bake's projected wall time, from a short calibration.
type Projection struct {
	Samples  int           // points timed
	PerPoint time.Duration // one point's PVS (visibility, quadtree encoding, one cap per output) on one core
	Wall     time.Duration // projected wall time of the whole bake
}

// Project times cfg's per-point work on about samples points — whole
// observer tiles of horizon.TileSide² points, spread evenly over the grid,
// one after another as the bake meets them (sharing each tile's early-stop
// band), one goroutine — and projects the wall time of Run(cfg):
// per-point cost × points ÷ workers. Nothing is added for the merge up the
// hierarchy: it runs beside the workers. It returns early with what it has
// when ctx ends.
func Project(ctx context.Context, cfg Config, samples int) (Projection, error) {
	dem := cfg.DEM
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return Projection{}, err
	}
	model, err := horizon.New(Terrain(dem), cfg.Params)
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
	const ts, per = horizon.TileSide, horizon.TileSide / horizon.BlockSide // tile side in cells, in blocks
	tc, tr := (dem.Width+ts-1)/ts, (dem.Height+ts-1)/ts
	tiles := tc * tr
	nt := max(1, min((samples+ts*ts-1)/(ts*ts), tiles))
	// One block untimed first: the workers' scratch grows to its size.
	if err := bw.Classify(0, 0, mask, &blk); err != nil {
		return Projection{}, err
	}
	enc.EncodeBlockTrees(&blk, blk.Points, 1<<horizon.Unions-1, &trees)
	start := time.Now()
	n := 0
	for i := range nt {
		// A low-discrepancy spread: the i-th of nt tiles in row-major
		// order, its column scrambled by a large prime stride.
		p := int(int64(i) * int64(tiles) / int64(nt))
		tx, ty := (p%tc*7919+p/tc)%tc, p/tc
		for j := range per * per {
			if ctx.Err() != nil {
				break
			}
			bx, by := j%per, j/per
			x, y := (tx*per+bx)*horizon.BlockSide, (ty*per+by)*horizon.BlockSide
			if x >= dem.Width || y >= dem.Height {
				continue
			}
			if err := bw.Classify(x, y, mask, &blk); err != nil {
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
	}
	if n == 0 {
		return Projection{}, ctx.Err()
	}
	pp := time.Since(start) / time.Duration(n)
	points := dem.Width * dem.Height
	wall := time.Duration(float64(pp) * float64(points) / float64(workers))
	return Projection{Samples: n, PerPoint: pp, Wall: wall}, nil
}

// Terrain returns the DEM g as the visibility model's terrain
// (horizon.New): its size, elevations in metres and cell spacing in
// metres, sharing g's elevations.
func Terrain(g *heightmap.Grid) horizon.Terrain {
	return horizon.Terrain{Width: g.Width, Height: g.Height, Elev: g.Elev, Dx: g.Dx, Dy: g.Dy}
}
