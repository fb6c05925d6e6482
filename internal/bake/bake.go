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
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
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
// window of blocks' trees, the per-level partial unions, each output's quad
// index — plus 80 MiB for the runtime and the output buffers. The profiles
// reach their bound only on terrain where no line stops early (a flat
// plane); on real terrain they stay a fraction of it.
func Estimate(width, height int, p horizon.Params, dx, dy float64, workers, outputs int) int64 {
	w, h := int64(width), int64(height)
	cells := w * h
	tables := horizon.TableBytes(width, height, dx, dy, p)
	tree := int64(quadpvs.BytesFor(int(cells*4/3 + 1)))  // a worst-case tree
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
		4*levels*tree + int64(outputs)*(16*quads+2<<20)
	return 2*live + 80<<20
}

// window is how many blocks' trees may wait for their turn in Morton order.
func window(workers int) int64 { return int64(4 * workers) }

// blockTrees are the trees of one job: its points' PVSs by lane, and when
// whole (the job holds every point of its block and the span reaches level
// 2) after them the unions of its level-1 quads and of the block.
type blockTrees struct {
	job      int
	col, row int // the block's corner cell
	whole    bool
	trees    [horizon.Lanes + horizon.Unions]quadpvs.Tree
	trunc    [horizon.Lanes + horizon.Unions]quadpvs.Tree // when whole: the trees truncated at level 1, to cap from
	capped   [horizon.Lanes + horizon.Unions]capped       // when whole: the trees capped for every output
}

// blockJob is one job of a bake: the points order[first:last], all in the
// block of observers whose corner cell is (col,row).
type blockJob struct {
	col, row    int
	first, last int
	points      int // last − first
}

// blockJobs cuts a Morton order of points into blocks: consecutive points
// of one level-2 quad.
func blockJobs(order [][2]int) []blockJob {
	var jobs []blockJob
	for i, c := range order {
		col, row := c[0]&^(horizon.BlockSide-1), c[1]&^(horizon.BlockSide-1)
		if n := len(jobs); n > 0 && jobs[n-1].col == col && jobs[n-1].row == row && jobs[n-1].last == i {
			jobs[n-1].last++
			jobs[n-1].points++
			continue
		}
		jobs = append(jobs, blockJob{col: col, row: row, first: i, last: i + 1, points: 1})
	}
	return jobs
}

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

// pipeline is one bake's state, shared by its stages.
type pipeline struct {
	cfg      Config
	dem      *heightmap.Grid
	g        quadpvs.Geometry
	model    *horizon.Model
	workers  int
	sample   int // hidden cells sampled on every sample-th quad index
	span     quadpvs.Span
	caps     []compress.Cap
	prices   []*pricing // coded outputs' (nil for flat ones)
	sink     sink
	wr       *writer
	hier     quadpvs.Layout
	builder  *quadpvs.HierarchyBuilder
	order    [][2]int // the span's points in Morton order
	jobs     []blockJob
	unions   bool // the jobs' blocks are whole up to level 2
	mask     *horizon.Mask
	merged   *capper     // the writer's capper (quads above level 2)
	pool     sync.Pool   // *blockTrees
	finPool  sync.Pool   // *capped
	treePool sync.Pool   // *quadpvs.Tree
	cur      *blockTrees // the block AddBlock is adding, its quads capped
	emitCtx  context.Context
	fin      chan<- finished
	mergeJob int // the job the merge is adding

	startJob, startDone int // the first job to bake and the points before it (a resumed bake's)
}

// finished is a quad handed from the merge to the writer, in the order
// the builder emits them: a block's quads (levels 0–2) capped by the worker
// that computed the block, the others copied and capped by the merge.
type finished struct {
	r       *capped
	root    bool        // a shard's subtree root
	release *blockTrees // back to the pool once written (its last quad)
	own     bool        // r and r.t are the stage's: back to their pools once written

	// A checkpoint (no quad): every job before ckptJob is written and
	// ckptDone points are baked.
	ckptJob, ckptDone int
}

// newPipeline prepares cfg's bake: geometry, visibility model, coded
// outputs' prices (a sample baked now), the sink, the hierarchy builder and
// the jobs.
func newPipeline(ctx context.Context, cfg Config) (*pipeline, error) {
	if err := checkPVSCell(cfg); err != nil {
		return nil, err
	}
	dem := cfg.DEM
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return nil, err
	}
	model := cfg.model
	if model == nil {
		if model, err = newModel(cfg); err != nil {
			return nil, err
		}
	}
	pl := &pipeline{cfg: cfg, dem: dem, g: g, model: model, workers: cfg.Workers, sample: cfg.HiddenSample,
		span: quadpvs.Span{Top: g.K, Last: -1}, prices: make([]*pricing, len(cfg.Outputs)), hier: g.Layout()}
	if pl.workers <= 0 {
		pl.workers = runtime.GOMAXPROCS(0)
	}
	if pl.sample <= 0 {
		pl.sample = 16
	}
	if err := pl.planCoded(ctx); err != nil {
		return nil, err
	}
	if sh := cfg.Shard; sh.Count > 0 {
		plan, err := PlanShards(g, dem.Nodata, sh.Count)
		if err != nil {
			return nil, err
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			return nil, fmt.Errorf("bake: shard %d of %d", sh.Index, sh.Count)
		}
		pl.span = plan.Span(sh.Index)
		if pl.sink, err = createPart(sh.Path, plan.Header(dem, cfg.Params, cfg.Outputs, sh.Index, pl.sample), dem); err != nil {
			return nil, err
		}
	} else {
		st, err := createStores(cfg.Outputs, pl.prices, dem, cfg.Params, g, cfg.ckpt)
		if err != nil {
			return nil, err
		}
		pl.sink = st
	}
	pl.caps = make([]compress.Cap, len(cfg.Outputs))
	for i, o := range cfg.Outputs {
		pl.caps[i] = o.Cap
	}
	pl.wr = &writer{sink: pl.sink, tally: make([]compress.Tally, len(pl.caps))}
	pl.merged = newCapper(g, pl.caps, pl.prices, pl.sample)
	pl.finPool.New = func() any { return new(capped) }
	pl.treePool.New = func() any { return new(quadpvs.Tree) }
	pl.pool.New = func() any { return new(blockTrees) }
	pl.mask = horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	if pl.builder, err = quadpvs.NewSpanBuilder(g, pl.span, pl.emit); err != nil {
		pl.sink.abort()
		return nil, err
	}
	pl.order = pl.builder.Order()
	// One job is one block of observers (horizon's block engine): the
	// points of the span in one level-2 quad, consecutive in Morton order.
	// When the span holds whole blocks up to level 2 at least, the job's
	// level-1 and level-2 unions come from the block too (AddBlock).
	pl.jobs = blockJobs(pl.order)
	pl.unions = pl.span.Top >= 2 && g.K >= 2
	if ck := cfg.ckpt; ck != nil {
		ck.tileStarts(pl.jobs, ck.plan)
		if ck.state != nil {
			if err := ck.restore(pl); err != nil {
				pl.sink.abort()
				return nil, err
			}
		}
	}
	return pl, nil
}

// planCoded prices the coded outputs from one sample (coded.go). They
// share the largest of their ceilings: one pass of collapses caps a tree
// for all of them (capPriced).
func (pl *pipeline) planCoded(ctx context.Context) error {
	var sample []sampleTrees
	baked := false
	ceiling := 0
	for _, o := range pl.cfg.Outputs {
		if o.Coded {
			ceiling = max(ceiling, o.Cap.Codes)
		}
	}
	pl.cfg.Outputs = slices.Clone(pl.cfg.Outputs)
	for i := range pl.cfg.Outputs {
		if pl.cfg.Outputs[i].Coded {
			pl.cfg.Outputs[i].Cap.Codes = ceiling
		}
	}
	for i, o := range pl.cfg.Outputs {
		if !o.Coded {
			continue
		}
		if pl.cfg.Shard.Count > 0 {
			return errors.New("bake: a sharded bake writes flat partials: join them, then code the store (pvsbake code)")
		}
		if o.Budget <= 0 || o.Cap.Codes < 1 {
			return fmt.Errorf("bake: coded output %s needs a budget and a ceiling", o.Path)
		}
		if !baked {
			var err error
			if sample, err = bakeSample(ctx, pl.model, pl.dem, pl.g, pl.workers); err != nil {
				return err
			}
			baked = true
		}
		var err error
		if pl.prices[i], err = plan(sample, pl.g, o); err != nil {
			return fmt.Errorf("%s: %w", o.Path, err)
		}
	}
	return nil
}

// emit is the builder's Emit: it hands quad (l,x,y) to the writer, capped —
// by the worker for a block's quads, here for the others.
func (pl *pipeline) emit(l, x, y int, t *quadpvs.Tree) error {
	q := pl.hier.QuadIndex(l, x, y)
	f := finished{root: pl.cfg.Shard.Count > 0 && l == pl.span.Top}
	if cur := pl.cur; cur != nil && l <= 2 {
		i := horizon.Lanes + 4 // the block
		switch l {
		case 0:
			i = (y-cur.row)*horizon.BlockSide + x - cur.col
		case 1:
			i = horizon.Lanes + (y&1)<<1 | x&1
		}
		f.r = &cur.capped[i]
		if l == 2 {
			f.release = cur
		}
	} else {
		c := pl.treePool.Get().(*quadpvs.Tree)
		t.CopyTo(c)
		f.r, f.own = pl.finPool.Get().(*capped), true
		if err := pl.merged.cap(q, pl.mergeJob, c, nil, f.r); err != nil {
			return err
		}
	}
	select {
	case pl.fin <- f:
		return nil
	case <-pl.emitCtx.Done():
		return pl.emitCtx.Err()
	}
}

// write hands the finished quads to the sink, in order, and recycles
// their memory.
func (pl *pipeline) write(fin <-chan finished) error {
	for f := range fin {
		if f.r == nil {
			if err := pl.cfg.ckpt.save(pl, f.ckptJob, f.ckptDone); err != nil {
				return err
			}
			pl.cfg.ckpt.saved <- struct{}{}
			continue
		}
		if err := pl.wr.write(f.r, f.root); err != nil {
			return err
		}
		if f.release != nil {
			pl.pool.Put(f.release)
		}
		if f.own {
			pl.treePool.Put(f.r.t)
			pl.finPool.Put(f.r)
		}
	}
	return nil
}

// produce hands out the jobs in order, while the reorder window has room.
func (pl *pipeline) produce(ctx context.Context, jobc chan<- int, slots chan<- struct{}) error {
	defer close(jobc)
	for i := pl.startJob; i < len(pl.jobs); i++ {
		if ck := pl.cfg.ckpt; ck != nil && ck.at[i] && i > pl.startJob {
			// A tile starts: the writer checkpoints everything before.
			select {
			case <-ck.saved:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case jobc <- i:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// work is one worker: for every job, its block of observers classified,
// their trees and (whole blocks) their unions encoded, and the block's
// quads capped for every output.
func (pl *pipeline) work(ctx context.Context, jobc <-chan int, results chan<- *blockTrees) error {
	bw := pl.model.NewBlockWorker()
	enc := quadpvs.NewEncoder(pl.g)
	cp := newCapper(pl.g, pl.caps, pl.prices, pl.sample)
	var blk horizon.Block
	var visible [horizon.Lanes]int
	for i := range jobc {
		jb := pl.jobs[i]
		bt := pl.pool.Get().(*blockTrees)
		bt.job = i
		// Nobody stands on, so nobody sees, a nodata cell (mask).
		if err := bw.Classify(jb.col, jb.row, pl.mask, &blk); err != nil {
			return err
		}
		bt.whole = pl.unions && jb.points == bits.OnesCount16(blk.Points)
		var lanes uint16
		for _, c := range pl.order[jb.first:jb.last] {
			lanes |= 1 << ((c[1]-jb.row)*horizon.BlockSide + c[0] - jb.col)
		}
		var us uint8
		if bt.whole {
			us = 1<<horizon.Unions - 1
		}
		enc.EncodeBlockTrees(&blk, lanes, us, &bt.trees)
		bt.col, bt.row = jb.col, jb.row
		if tv := pl.cfg.TotalViewshed; tv != nil {
			enc.BlockVisibleCells(&blk, lanes, &visible)
			for _, c := range pl.order[jb.first:jb.last] {
				tv[c[1]*pl.dem.Width+c[0]] = uint32(visible[(c[1]-jb.row)*horizon.BlockSide+c[0]-jb.col])
			}
		}
		if bt.whole {
			if err := pl.capBlock(cp, enc, &blk, lanes, us, bt); err != nil {
				return err
			}
		}
		select {
		case results <- bt:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// capBlock caps a whole block's quads (levels 0 to 2) for every output,
// in the worker rather than the writer; from the trees truncated at level 1
// when a deepest-first cap binds.
func (pl *pipeline) capBlock(cp *capper, enc *quadpvs.Encoder, blk *horizon.Block, lanes uint16, us uint8, bt *blockTrees) error {
	maxLen, maxNodes := 0, 0
	for i := range bt.trees {
		maxLen, maxNodes = max(maxLen, bt.trees[i].Len()), max(maxNodes, bt.trees[i].Nodes())
	}
	var trunc *[horizon.Lanes + horizon.Unions]quadpvs.Tree
	if cp.deepestBinds(maxLen, maxNodes) {
		enc.EncodeBlockTruncated(blk, lanes, us, &bt.trunc)
		trunc = &bt.trunc
	}
	for i := range bt.trees {
		l, x, y := 0, bt.col+i%horizon.BlockSide, bt.row+i/horizon.BlockSide
		if i >= horizon.Lanes {
			u := i - horizon.Lanes
			l, x, y = 1, bt.col/2+u&1, bt.row/2+u>>1
			if u == 4 {
				l, x, y = 2, bt.col/4, bt.row/4
			}
		}
		if x<<l >= pl.dem.Width || y<<l >= pl.dem.Height {
			continue
		}
		var tt *quadpvs.Tree
		if trunc != nil {
			tt = &trunc[i]
		}
		if err := cp.cap(pl.hier.QuadIndex(l, x, y), bt.job, &bt.trees[i], tt, &bt.capped[i]); err != nil {
			return err
		}
	}
	return nil
}

// merge takes the workers' blocks, puts them back in order and adds them
// to the hierarchy builder, which emits every finished quad to the writer.
func (pl *pipeline) merge(ctx context.Context, results <-chan *blockTrees, slots <-chan struct{}, fin chan<- finished) error {
	defer close(fin)
	pl.fin, pl.emitCtx = fin, ctx
	pending := map[int]*blockTrees{}
	next, done := pl.startJob, pl.startDone
	var pts [quadpvs.BlockPoints]*quadpvs.Tree
	var l1 [4]*quadpvs.Tree
	var l2 quadpvs.Tree
	for r := range results {
		pending[r.job] = r
		for bt, ok := pending[next]; ok; bt, ok = pending[next] {
			delete(pending, next)
			jb := pl.jobs[next]
			pl.mergeJob = next
			if bt.whole {
				for b := range pts {
					pts[b] = &bt.trees[b]
				}
				for j := range l1 {
					l1[j] = &bt.trees[horizon.Lanes+j]
				}
				// The builder takes the block's PVS's memory; the
				// writer still needs it (a reference where no cap binds).
				bt.trees[horizon.Lanes+4].CopyTo(&l2)
				pl.cur = bt
				err := pl.builder.AddBlock(jb.col/horizon.BlockSide, jb.row/horizon.BlockSide, &pts, &l1, &l2)
				pl.cur = nil
				if err != nil {
					return err
				}
			} else {
				for _, c := range pl.order[jb.first:jb.last] {
					b := (c[1]-jb.row)*horizon.BlockSide + c[0] - jb.col
					if err := pl.builder.Add(c[0], c[1], &bt.trees[b]); err != nil {
						return err
					}
				}
				pl.pool.Put(bt) // the writer got copies
			}
			<-slots
			next++
			done += jb.last - jb.first
			if pl.cfg.Progress != nil {
				pl.cfg.Progress(done, len(pl.order))
			}
			if ck := pl.cfg.ckpt; ck != nil && ck.at[next] {
				select {
				case fin <- finished{ckptJob: next, ckptDone: done}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
	}
	if next != len(pl.jobs) && ctx.Err() == nil {
		return errors.New("bake: a worker stopped early")
	}
	return nil
}

// capper caps a quad's PVS for every output, sampling hidden cells kept on
// every sample-th quad index. The outputs are grouped by what their caps
// count (codes for budgets, nodes) and by their policy (deepest-first,
// min-loss); each group is capped in one pass (CapEach), largest cap
// first. One per goroutine: the workers cap their blocks' quads (levels
// 0–2, nearly all of them), the writer the quads the hierarchy builder
// merges.
type capper struct {
	g      quadpvs.Geometry
	caps   []compress.Cap
	prices []*pricing // coded outputs' (nil for the others)
	sample int
	groups [4][]int          // outputs capped on codes, on nodes, then the same with min-loss; by cap, largest first
	priced []int             // coded outputs, capped at their price
	capper [2]quadpvs.Capper // deepest-first, min-loss
	pc     quadpvs.Capper    // min-loss, costs in codes: the priced outputs'
	walker quadpvs.Walker
	lims   []int
	dsts   []*quadpvs.Tree
	th     []float64
	sizes  []int32
	order  []int
}

func newCapper(g quadpvs.Geometry, caps []compress.Cap, prices []*pricing, sample int) *capper {
	c := &capper{g: g, caps: caps, prices: prices, sample: sample}
	c.capper[1] = quadpvs.Capper{MinLoss: true, G: g}
	c.pc = quadpvs.Capper{MinLoss: true, G: g, CostCodes: true}
	for i, cp := range caps {
		if prices[i] != nil {
			c.priced = append(c.priced, i)
			continue
		}
		k := 0
		if cp.MinLoss {
			k = 2
		}
		switch {
		case cp.Codes > 0:
			c.groups[k] = append(c.groups[k], i)
		case cp.Nodes > 0:
			c.groups[k+1] = append(c.groups[k+1], i)
		}
	}
	for _, gr := range c.groups {
		sort.SliceStable(gr, func(a, b int) bool { return c.limit(gr[a]) > c.limit(gr[b]) })
	}
	return c
}

// limit returns output i's cap (codes or nodes), or MaxInt when none.
func (c *capper) limit(i int) int {
	cp := c.caps[i]
	switch {
	case cp.Codes > 0:
		return cp.Codes
	case cp.Nodes > 0:
		return cp.Nodes
	}
	return math.MaxInt
}

// capped is a quad's PVS capped for every output: out[i] is t itself where
// no cap binds, else dst[i]; before and after[i] count hidden cells when the
// quad is sampled.
type capped struct {
	q       int
	t       *quadpvs.Tree
	out     []*quadpvs.Tree
	dst     []quadpvs.Tree
	step    []int32 // coded outputs: the price step capped at
	job     int     // the job (block of observers) whose merge finished the quad
	sampled bool
	before  int
	after   []int
}

// deepestBinds reports whether a deepest-first cap binds a tree of size
// codes and nodes.
func (c *capper) deepestBinds(codes, nodes int) bool {
	for _, i := range c.groups[0] {
		if codes > c.limit(i) {
			return true
		}
	}
	for _, i := range c.groups[1] {
		if nodes > c.limit(i) {
			return true
		}
	}
	return false
}

// cap caps t, the PVS of quad index q, into r (reusing its memory); r
// refers to t afterwards. trunc, when not nil, is t truncated at level 1
// (quadpvs.Encoder.EncodeBlockTruncated): deepest-first caps below its
// size start from it, as exactly and with fewer codes to go through.
func (c *capper) cap(q, job int, t, trunc *quadpvs.Tree, r *capped) error {
	n := len(c.caps)
	if len(r.out) != n {
		r.out, r.dst, r.after, r.step = make([]*quadpvs.Tree, n), make([]quadpvs.Tree, n), make([]int, n), make([]int32, n)
	}
	r.q, r.t, r.job = q, t, job
	for i := range r.out {
		r.out[i] = t
	}
	for k, gr := range c.groups {
		codes := k%2 == 0
		size := t.Len()
		if !codes {
			size = t.Nodes()
		}
		c.lims, c.dsts = c.lims[:0], c.dsts[:0]
		for _, i := range gr {
			if l := c.limit(i); size > l {
				c.lims = append(c.lims, l)
				c.dsts = append(c.dsts, &r.dst[i])
				r.out[i] = &r.dst[i]
			}
		}
		if len(c.lims) > 0 {
			src := t
			if k < 2 && trunc != nil {
				ts := trunc.Len()
				if !codes {
					ts = trunc.Nodes()
				}
				if ts > c.lims[0] {
					src = trunc
				}
			}
			if err := c.capper[k/2].CapEach(c.dsts, src, c.lims, codes); err != nil {
				return err
			}
		}
	}
	if err := c.capPriced(t, r); err != nil {
		return err
	}
	r.sampled = q%c.sample == 0
	if r.sampled {
		r.before = c.walker.HiddenCells(c.g, t)
		for i, o := range r.out {
			r.after[i] = c.walker.HiddenCells(c.g, o)
		}
	}
	return nil
}

// capPriced caps t for the coded outputs, each at its price for the quad's
// job: the trees of every price, in one pass (CapAtPrices, prices in
// increasing order, from the outputs' largest ceiling; a price's tree is
// held to its output's ceiling by the ceiling of the pass, the largest).
func (c *capper) capPriced(t *quadpvs.Tree, r *capped) error {
	if len(c.priced) == 0 {
		return nil
	}
	c.th, c.dsts = c.th[:0], c.dsts[:0]
	order := c.order[:0]
	ceiling := 0
	for _, i := range c.priced {
		price, step := c.prices[i].price(r.job)
		r.step[i] = step
		ceiling = max(ceiling, c.caps[i].Codes)
		// Insert i by price (a handful of outputs).
		k := len(order)
		order, c.th = append(order, i), append(c.th, price)
		for ; k > 0 && c.th[k-1] > price; k-- {
			order[k], c.th[k] = order[k-1], c.th[k-1]
		}
		order[k], c.th[k] = i, price
	}
	c.order = order
	if cap(c.sizes) < len(c.th) {
		c.sizes = make([]int32, len(c.th))
	}
	for _, i := range order {
		c.dsts = append(c.dsts, &r.dst[i])
	}
	if err := c.pc.CapAtPrices(c.dsts, c.sizes[:len(c.th)], t, ceiling, 1, c.th); err != nil {
		return err
	}
	for k, i := range order {
		r.out[i] = c.dsts[k]
		if int(c.sizes[k]) >= t.Len() {
			r.out[i] = t
		}
	}
	return nil
}

// writer hands capped quads to a sink, tallying each output's statistics.
type writer struct {
	sink  sink
	tally []compress.Tally // per output
}

// write hands r's trees to the sink, with r.t itself when root (a
// shard's subtree root).
func (w *writer) write(r *capped, root bool) error {
	for i, o := range r.out {
		w.tally[i].Tree(o)
		if r.sampled {
			w.tally[i].Hidden(r.before, r.after[i])
		}
	}
	var full *quadpvs.Tree
	if root {
		full = r.t
	}
	return w.sink.add(r, full)
}

// headerFor describes a store of dem baked with p under o's cap.
func headerFor(dem *heightmap.Grid, p horizon.Params, o Output) compress.Header {
	h := compress.Header{
		Width: dem.Width, Height: dem.Height, DxM: dem.Dx, DyM: dem.Dy,
		GeoTransform: dem.GeoTransform, HasGeoTransform: dem.HasGeoTransform, CRS: dem.CRS, CRSName: dem.CRSName,
		Source: dem.Source, Window: [4]int{dem.Window.Col, dem.Window.Row, dem.Window.Width, dem.Window.Height},
		ZScale: dem.ZScale, Params: compress.FromHorizon(p), BudgetBytes: o.Budget, Cap: o.Cap,
	}
	l := dem.Loaded
	lf := compress.LoadFlags{CellSizeM: l.CellSize, ZScale: l.ZScale, ZOffsetM: l.ZOffset, HeightRangeM: l.HeightRange,
		RawSize: [2]int{l.RawWidth, l.RawHeight}, RawBigEndian: l.RawBigEndian, Band: l.Band}
	if lf != (compress.LoadFlags{}) {
		h.Load = &lf
	}
	h.LonLat, h.Engine = dem.LonLat, dem.Engine
	return h
}

// sink receives the capped trees of every finished quad, one per output,
// in the order the bake finishes them, with the uncapped root of a shard's
// subtree (nil otherwise); commit finishes its files with the outputs'
// tallies and renames them into place, abort removes them.
type sink interface {
	add(r *capped, root *quadpvs.Tree) error
	commit(tally []compress.Tally) ([]compress.Stats, error)
	abort()
}

// stores is the sink of a whole bake: one store per output, flat or coded.
type stores []store

// store is one output's file: a flat store (output) or a coded one
// (codedOutput).
type store struct {
	flat  *output
	coded *codedOutput
}

func (s store) temp() *atomicfile.Temp {
	if s.coded != nil {
		return s.coded.t
	}
	return s.flat.t
}

// path is the store's final path.
func (s store) path() string {
	if s.coded != nil {
		return s.coded.path
	}
	return s.flat.t.Path
}

// createStores starts every output's store: flat or coded, beside its
// path, or, in a resumable coded bake (ck not nil), in ck's folder.
func createStores(outputs []Output, prices []*pricing, dem *heightmap.Grid, p horizon.Params, g quadpvs.Geometry, ck *checkpointer) (stores, error) {
	var s stores
	for i, oc := range outputs {
		var st store
		var err error
		if prices[i] != nil {
			st.coded, err = createCoded(oc, headerFor(dem, p, oc), prices[i], g, dem, ck, i)
		} else {
			st.flat, err = createOutput(oc.Path, headerFor(dem, p, oc), g.QuadCount(), dem.Elev, dem.Nodata)
		}
		if err != nil {
			s.abort()
			return nil, err
		}
		s = append(s, st)
	}
	return s, nil
}

func (s stores) add(r *capped, _ *quadpvs.Tree) error {
	for i, o := range s {
		var err error
		if o.coded != nil {
			o.coded.p.reach(r.job)
			err = o.coded.add(r.q, r.out[i], r.step[i])
		} else {
			err = o.flat.w.Add(r.q, r.out[i])
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", o.path(), err)
		}
	}
	return nil
}

// commit finishes every store, then makes them their final files all or
// none (atomicfile.CommitAll). It returns the statistics written.
func (s stores) commit(tally []compress.Tally) ([]compress.Stats, error) {
	temps := make([]*atomicfile.Temp, len(s))
	stats := make([]compress.Stats, len(s))
	for i, o := range s {
		var err error
		if o.coded != nil {
			stats[i], err = o.coded.finish(tally[i])
		} else {
			stats[i] = tally[i].Stats()
			err = o.flat.w.Close(stats[i])
		}
		if err == nil && o.coded != nil && o.coded.t == nil {
			err = o.coded.publish()
		}
		if err != nil {
			s.abort()
			return nil, fmt.Errorf("write %s: %w", o.path(), err)
		}
		temps[i] = o.temp()
	}
	return stats, atomicfile.CommitAll(temps)
}

// abort removes the stores' temporary files; a resumable coded bake's
// stores stay in its folder, for the next run.
func (s stores) abort() {
	for _, o := range s {
		if o.coded != nil && o.coded.t == nil {
			o.coded.f.Close()
			o.coded.addsFile.Close()
			continue
		}
		o.temp().Abort()
	}
}

// output is one store being written to its temporary file.
type output struct {
	t *atomicfile.Temp
	w *compress.Writer
}

func createOutput(path string, h compress.Header, quads int, elev []float32, nodata []bool) (*output, error) {
	t, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	o := &output{t: t}
	if o.w, err = compress.NewWriter(t, h, quads, elev, nodata); err != nil {
		t.Abort()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return o, nil
}

// OpenStore opens the store at path (compress.Open: a version 5 store in
// place, older ones read into memory). Errors name the path.
func OpenStore(path string) (*compress.Store, error) { return compress.Open(path) }
