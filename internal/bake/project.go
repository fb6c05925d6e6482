package bake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Projection is a bake's projected wall time, from a short calibration.
type Projection struct {
	Samples  int           // points timed
	PerPoint time.Duration // one point's share of a worker's work (visibility, trees, caps for every output) on one core, as the machine gave it
	Wall     time.Duration // projected wall time of the whole bake
	Kernels  string        // the block engine's kernels it timed (horizon.SIMD's names)
}

// projectPrice is the price, in hidden cells per code, a projection caps
// a coded output's trees at: the bake's own comes from the sample it bakes
// first (coded.go), after the projection; the stores measured took 2.7
// (4097², 1 GiB) to 4.4 (257², 4 MiB), and capping costs more at higher
// prices (its collapses go on to 64 times the price).
const projectPrice = 3

// Project times cfg's per-point work on about samples points — whole
// observer tiles of horizon.TileSide² points, spread evenly over the grid,
// each tile's blocks one after another as the bake meets them (sharing its
// early-stop band), the tiles shared among the bake's workers running at
// once, so that other work on the machine slows them as it will slow the
// bake — and projects the wall time of Run(cfg): per-point cost × points ÷
// workers, the per-point cost being the calibrators' summed busy time over
// the points they did (not the slowest calibrator's time: with a tile each,
// the slowest of 16 set projections 1.7–1.8× long on a 16-core machine).
// A block's work is a worker's (work,
// capBlock): its points' PVSs and its level-1 and level-2 unions, each
// capped for every output, coded outputs at projectPrice. Nothing is added
// for the merge up the hierarchy: it runs beside the workers. The timing
// stops with what it has after limit (0: none; counted from its first
// timed block, so that building the model does not eat it) once every
// calibrator has timed a whole tile; a cancelled ctx stops it at once.
func Project(ctx context.Context, cfg Config, samples int, limit time.Duration) (Projection, error) {
	dem := cfg.DEM
	g, err := geometry(cfg)
	if err != nil {
		return Projection{}, err
	}
	model, err := newModel(cfg)
	if err != nil {
		return Projection{}, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pl := &pipeline{dem: dem, g: g, hier: g.Layout()}
	caps := make([]compress.Cap, len(cfg.Outputs))
	prices := make([]*pricing, len(cfg.Outputs))
	for i, o := range cfg.Outputs {
		caps[i] = o.Cap
		if o.Coded {
			prices[i] = &pricing{ladder: []float64{projectPrice}, sched: []int32{0}, stopped: true}
		}
	}
	sample := cfg.HiddenSample
	if sample <= 0 {
		sample = 16
	}
	mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	const ts, per = horizon.TileSide, horizon.TileSide / horizon.BlockSide // tile side in cells, in blocks
	tc, tr := (dem.Width+ts-1)/ts, (dem.Height+ts-1)/ts
	tiles := tc * tr
	// At least a tile for every worker, each timed at once (below).
	nt := max(1, min(max((samples+ts*ts-1)/(ts*ts), workers), tiles))
	whole := g.K >= 2
	var us uint8
	if whole {
		us = 1<<horizon.Unions - 1
	}
	// Every worker calibrates at once, on its share of the tiles, so that
	// a machine busy with other work shows in the time as it will in the
	// bake's (one goroutine timed alone ran 2× low on a loaded machine).
	calibrators := min(workers, nt)
	type calibrator struct {
		cp  *capper
		bw  *horizon.BlockWorker
		enc *quadpvs.Encoder
		blk horizon.Block
		bt  blockTrees
		n   int
		el  time.Duration // busy time
		err error
	}
	cs := make([]*calibrator, calibrators)
	for i := range cs {
		c := &calibrator{cp: newCapper(g, caps, prices, sample), bw: model.NewBlockWorker(), enc: quadpvs.NewEncoder(g)}
		// One block untimed first, at the map's centre, whose views reach
		// farthest: the worker's scratch grows to its size, as it does
		// once in a bake (a warm-up block in the corner, which sees least,
		// left the growth to the timed tiles: a 4097² 1 m map at 8 m PVS
		// cells projected 1.3 ms a point; the bake took 1.05).
		cx, cy := dem.Width/2/horizon.BlockSide*horizon.BlockSide, dem.Height/2/horizon.BlockSide*horizon.BlockSide
		if err := c.bw.Classify(cx, cy, mask, &c.blk); err != nil {
			return Projection{}, err
		}
		c.enc.EncodeBlockTrees(&c.blk, c.blk.Points, us, &c.bt.trees)
		cs[i] = c
	}
	// The tiles in van der Corput order of their rows (the first, the
	// middle, the quarters, …), dealt out to the calibrators: a
	// calibration cut short (ctx) has timed tiles spread down the map, not
	// its top edge only, where a view distance meets fewer cells (a 4097²
	// map at 1 m with a 1.5 km view, on two cores busy with other tests,
	// timed on its first 272 points projected 3.2 ms a point; on 10,672
	// spread over it, 18 ms; on two of its middle tiles, 52 ms).
	order := vanDerCorput(nt)
	tctx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	var wg sync.WaitGroup
	for w, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			defer func() { c.el = time.Since(start) }()
			for k := w; k < nt; k += calibrators {
				i := order[k]
				// A low-discrepancy spread: the i-th of nt tiles in
				// row-major order, its column scrambled by a large prime
				// stride.
				p := int(int64(i) * int64(tiles) / int64(nt))
				tx, ty := (p%tc*7919+p/tc)%tc, p/tc
				// Cut short (ctx) only between tiles, once one is timed: a
				// tile's first block costs several times its others (they
				// share its early-stop band), so whole tiles time a point.
				if tctx.Err() != nil && c.n > 0 {
					return
				}
				for j := range per * per {
					if ctx.Err() != nil {
						return // cancelled, not timed out: stop now
					}
					bx, by := j%per, j/per
					x, y := (tx*per+bx)*horizon.BlockSide, (ty*per+by)*horizon.BlockSide
					if x >= dem.Width || y >= dem.Height {
						continue
					}
					if c.err = c.bw.Classify(x, y, mask, &c.blk); c.err != nil {
						return
					}
					c.enc.EncodeBlockTrees(&c.blk, c.blk.Points, us, &c.bt.trees)
					c.bt.col, c.bt.row = x, y
					if whole {
						if c.err = pl.capBlock(c.cp, c.enc, &c.blk, c.blk.Points, us, &c.bt); c.err != nil {
							return
						}
					}
					c.n += bits.OnesCount16(c.blk.Points)
				}
				if k == w && k+calibrators < nt && tctx.Err() == nil {
					// Time allowing another tile, the first is dropped from
					// the timing: it pays for pages and caches the bake
					// pays once (the 1025² 18 m window at 2 km, timed
					// from its first tile on: 6m47s–7m24s projected in
					// three runs; from its second: 5m21s–6m9s in two; the
					// bake took 5m40s).
					start, c.n = time.Now(), 0
				}
			}
		}()
	}
	wg.Wait()
	n, el := 0, time.Duration(0)
	for _, c := range cs {
		if c.err != nil {
			return Projection{}, c.err
		}
		n, el = n+c.n, el+c.el
	}
	if n == 0 {
		return Projection{}, cmp.Or(ctx.Err(), tctx.Err())
	}
	// The calibrators ran as the bake's workers run: n points in el of
	// their summed time; the bake spreads its points over workers.
	pp := time.Duration(float64(el) / float64(n))
	points := dem.Width * dem.Height
	wall := time.Duration(float64(pp) * float64(points) / float64(workers))
	return Projection{Samples: n, PerPoint: pp, Wall: wall, Kernels: model.Kernels()}, nil
}

// PeakMemory projects the peak resident memory in bytes of Run(cfg),
// called after Project, which ran the bake's workers on real tiles of the
// loaded DEM: the memory resident now (rss; 0 where unknown: Go's own
// mapped memory instead) grown by what the bake adds to the live heap,
// times the collector's headroom (1 + GOGC/100) — the points' Morton order
// (8 bytes a point), each output's bit per quad and 2 MiB of index, and
// 16 MiB of trees in flight — never less than hwm, the peak so far (the
// load's, often the bake's own). Measured on two workers, against the
// peak /usr/bin/time gave: a 4097² 1 m GeoTIFF at 8 m PVS cells and 2 km,
// 466 MB projected, 476 MB taken; a 1025² window of the 18 m map at 2 km,
// 246 and 232; the urban DSM at 2.4 m PVS cells, 274 and 306;
// mount-washington.tif, 311 and 346.
func PeakMemory(cfg Config, rss, hwm int64) int64 {
	sm := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(sm)
	if rss <= 0 {
		rss = int64(sm[0].Value.Uint64() - sm[1].Value.Uint64())
	}
	gogc := int64(100)
	if sm[2].Value.Kind() == metrics.KindUint64 {
		gogc = int64(sm[2].Value.Uint64())
	}
	points := int64(cfg.DEM.Width) * int64(cfg.DEM.Height)
	var quads int64
	if g, err := geometry(cfg); err == nil {
		quads = int64(g.QuadCount())
	}
	add := 8*points + int64(len(cfg.Outputs))*(quads/8+2<<20) + 16<<20
	return max(hwm, rss+add*(100+gogc)/100)
}

// newModel returns the visibility model of cfg's DEM and parameters with
// cfg's kernels.
func newModel(cfg Config) (*horizon.Model, error) {
	m, err := horizon.New(Terrain(cfg.DEM), cfg.Params)
	if err != nil {
		return nil, err
	}
	if err := m.SetKernels(cfg.Kernels); err != nil {
		return nil, err
	}
	return m, nil
}

// Terrain returns the DEM g as the visibility model's terrain
// (horizon.New): its size, elevations in metres and cell spacing in
// metres, sharing g's elevations; for a grid of PVS cells
// (heightmap.Coarsen), its heightmap's, which horizon.New with
// Params.PVSCell turns into the PVS cells' model.
func Terrain(g *heightmap.Grid) horizon.Terrain {
	if g.Heightmap != nil { // a grid of PVS cells: the model reads the heightmap
		g = g.Heightmap
	}
	return horizon.Terrain{Width: g.Width, Height: g.Height, Elev: g.Elev, Dx: g.Dx, Dy: g.Dy}
}

// geometry returns the quad geometry of cfg's DEM, after checkPVSCell.
func geometry(cfg Config) (quadpvs.Geometry, error) {
	if err := checkPVSCell(cfg); err != nil {
		return quadpvs.Geometry{}, err
	}
	return quadpvs.NewGeometry(cfg.DEM.Width, cfg.DEM.Height)
}

// checkPVSCell reports a configuration whose parameters name PVS cells of
// k > 1 heightmap cells without the DEM being those PVS cells
// (heightmap.Coarsen with the same k), which horizon.New would build on
// another grid than the bake's.
func checkPVSCell(cfg Config) error {
	if k := cfg.Params.PVSCell; cfg.DEM != nil && (k > 1 || cfg.DEM.Heightmap != nil) && (cfg.DEM.Heightmap == nil || cfg.DEM.PVSCell != k) {
		return fmt.Errorf("bake: the parameters' PVS cells of %d heightmap cells and the DEM's of %d differ: bake heightmap.Coarsen(dem, %d)", k, cfg.DEM.PVSCell, k)
	}
	return nil
}

// ErrNeedsHeightmap reports a store whose cells are PVS cells coarser
// than the heightmap it was baked from (compress.VisParams.PVSCell): it
// keeps the PVS cells' mean elevations, not the heightmap's, so a model
// recomputed from it would not be the bake's.
var ErrNeedsHeightmap = errors.New("its cells are PVS cells coarser than its heightmap, whose elevations it does not keep: recomputing its PVSs needs the DEM (frontierq verify --dem)")

// StoreModel returns the visibility model of store s recomputed from its
// own elevations and parameters, as the bake computed it. Errors:
// ErrNeedsHeightmap, horizon.New's.
func StoreModel(s *compress.Store) (*horizon.Model, error) {
	if s.Params.PVSCell > 1 {
		return nil, ErrNeedsHeightmap
	}
	return horizon.New(horizon.Terrain{Width: s.Width, Height: s.Height, Elev: s.Elev, Dx: s.DxM, Dy: s.DyM}, s.Params.Horizon())
}

// vanDerCorput returns 0…n−1 in van der Corput order: 0, n/2, n/4, 3n/4,
// … (bit-reversed counting, indices ≥ n skipped), so that every prefix is
// spread over the range.
func vanDerCorput(n int) []int {
	b := bits.Len(uint(max(n-1, 0)))
	out := make([]int, 0, n)
	for k := 0; len(out) < n; k++ {
		i := int(bits.Reverse(uint(k)) >> (bits.UintSize - b))
		if b == 0 {
			i = k
		}
		if i < n {
			out = append(out, i)
		}
	}
	return out
}
