// Package bake runs the baker's main job: every terrain point's PVS (horizon,
// §3.1) computed in parallel, encoded as predictive quadtrees (quadpvs,
// §3.2), merged up the quad hierarchy in Morton order, capped per output
// budget (§3.4) and streamed into one store file per budget (compress), each
// written to a temporary file and renamed into place when complete.
package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Output is one store to write: its path and the cap its PVSs get, derived
// from Budget (bytes, 0 when Cap was given in nodes). Label names the
// output among several (the budget as given, "64MB", or "n267"); a sharded
// bake's join names its stores from it.
type Output struct {
	Path   string
	Label  string
	Budget int64
	Cap    compress.Cap
	// Coded bakes a coded store filling Budget (coded.go); Cap.Codes is
	// then the ceiling every tree is capped at first.
	Coded bool
}

// Config is one bake.
type Config struct {
	DEM     *heightmap.Grid
	Params  horizon.Params
	Workers int // goroutines computing viewsheds; 0 means GOMAXPROCS
	// Kernels names the block engine's kernels (horizon.SetKernels'
	// names: auto, avx512, avx2, scalar); "" means horizon's default.
	// Every set bakes the same bytes.
	Kernels string
	Outputs []Output
	// Progress, when set, is called from one goroutine after each point's
	// PVS has been merged, with the points done and the total.
	Progress func(done, total int)
	// HiddenSample measures hidden cells kept on every HiddenSample-th quad
	// (0 means 16).
	HiddenSample int
	// Shard, when Count > 0, bakes only shard Index of Count (PlanShards)
	// into the partial file Path instead of the Outputs' stores, which
	// Join writes from all the shards' partials.
	Shard Shard
	// TotalViewshed, when it holds Width·Height counts, receives each
	// point's visible cells (row-major, index row·Width+col) from its
	// uncapped PVS, before any cap: a total viewshed (Tabik et al.) for no
	// extra pass. Points on nodata count 0. Not with Shard or Resume.
	TotalViewshed []uint32

	model *horizon.Model // built once for all of Resume's tiles; nil: built from DEM and Params
	ckpt  *checkpointer  // a resumable coded bake's checkpoints (checkpoint.go); nil: none
}

// Shard is one share of a sharded bake: shard Index (0 ≤ Index < Count),
// written to the partial file Path.
type Shard struct {
	Index, Count int
	Path         string
}

// Estimate returns the peak resident memory in bytes a bake of a
// width×height grid (cells dx × dy metres) with parameters p, the given
// workers and outputs is expected to need: twice the live data (the Go
// collector lets the heap grow to twice what is live, GOGC=100) — the DEM,
// the visibility tables (horizon.TableBytes, with the model's), each worker's scratch (the
// block engine's profiles at their largest, horizon.BlockProfileBytes, its
// early-stop band, the block's groups, a block's 21 trees), the reorder
// window of blocks' trees, the per-level partial unions, each output's bit
// per quad and 2 MiB (its index spills to a file: indexSpill) — plus
// 80 MiB for the runtime and the output buffers, and 64 MiB for an
// index assembled at the commit. The profiles
// reach their bound only on terrain where no line stops early (a flat
// plane); on real terrain they stay a fraction of it.
func Estimate(width, height int, p horizon.Params, dx, dy float64, workers, outputs int) int64 {
	w, h := int64(width), int64(height)
	cells := w * h
	tables := horizon.TableBytes(width, height, dx, dy, p)
	tree := int64(quadtree.BytesFor(int(cells*4/3 + 1))) // a worst-case tree
	trees := int64(2 * (horizon.Lanes + horizon.Unions)) // a block's trees, whole and truncated
	// Profiles, the early-stop band (4 B per sector per 16 cells of the
	// longer side), groups (a 44-byte group per four quads reached at
	// most), a block's trees.
	worker := horizon.BlockProfileBytes(width, height, p.Sectors) + 4*int64(p.Sectors)*(max(w, h)/16+1) +
		15*cells + trees*tree
	g, _ := quadpvs.NewGeometry(width, height)
	levels := int64(g.Levels())
	quads := int64(g.QuadCount())
	live := 4*cells + 16*cells + tables + int64(workers)*worker + window(workers)*trees*tree/4 +
		4*levels*tree + int64(outputs)*(quads/8+2<<20)
	return 2*live + 144<<20
}

// window is how many blocks' trees may wait for their turn in Morton order.
func window(workers int) int64 { return int64(4 * workers) }

// Run bakes cfg: every output store is complete and renamed into place, or,
// on any error or cancellation, none is (their temporary files are removed).
// It returns each output's statistics. The stages, each its own function
// (pipeline's methods): prices for coded outputs (a sample baked first,
// coded.go), the sink (the stores or a shard's partial file), then on
// errgroup goroutines the jobs (blocks of observers, in Morton order), the
// workers (viewsheds, trees, caps of levels 0 to 2), the merge (the
// hierarchy builder, in order) and the writer (caps above level 2, the
// sink), and the commit.
func Run(ctx context.Context, cfg Config) ([]compress.Stats, error) {
	if tv := cfg.TotalViewshed; tv != nil && (cfg.DEM == nil || len(tv) != cfg.DEM.Width*cfg.DEM.Height || cfg.Shard.Count > 0) {
		return nil, errors.New("bake: a total viewshed needs Width·Height counts and a whole bake (not a shard)")
	}
	pl, err := newPipeline(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		if pl.sink != nil {
			pl.sink.abort()
		}
	}()
	eg, ctx := errgroup.WithContext(ctx)
	for _, p := range pl.prices {
		if p != nil {
			defer p.stop()
			stop := context.AfterFunc(ctx, p.stop) // a failed bake releases waiting workers
			defer stop()
		}
	}
	fin := make(chan finished, 64)
	jobc := make(chan int)
	results := make(chan *blockTrees, pl.workers)
	slots := make(chan struct{}, window(pl.workers)) // bounds blocks waiting in the reorder buffer
	eg.Go(func() error { return pl.write(fin) })
	eg.Go(func() error { return pl.produce(ctx, jobc, slots) })
	var wg sync.WaitGroup
	for range pl.workers {
		wg.Add(1)
		eg.Go(func() error {
			defer wg.Done()
			return pl.work(ctx, jobc, results)
		})
	}
	go func() { wg.Wait(); close(results) }()
	eg.Go(func() error { return pl.merge(ctx, results, slots, fin) })
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if !pl.builder.Done() {
		return nil, errors.New("bake: hierarchy incomplete")
	}
	stats, err := pl.sink.commit(pl.wr.tally)
	if err != nil {
		return nil, err
	}
	pl.sink = nil
	return stats, nil
}

// OpenStore opens the store at path (compress.Open: a version 5 store in
// place, older ones read into memory). Errors name the path.
func OpenStore(path string) (*compress.Store, error) { return compress.Open(path) }

// OpenGrower opens the store at path (OpenStore) and prepares its grower
// (grow.New), closing the store again when that fails. Errors name the
// path.
func OpenGrower(path string) (*compress.Store, *grow.Grower, error) {
	s, err := OpenStore(path)
	if err != nil {
		return nil, nil, err
	}
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, gr, nil
}
