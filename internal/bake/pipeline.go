package bake

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

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
func blockJobs(order [][2]int32) []blockJob {
	var jobs []blockJob
	for i, c := range order {
		col, row := int(c[0])&^(horizon.BlockSide-1), int(c[1])&^(horizon.BlockSide-1)
		if n := len(jobs); n > 0 && jobs[n-1].col == col && jobs[n-1].row == row && jobs[n-1].last == i {
			jobs[n-1].last++
			jobs[n-1].points++
			continue
		}
		jobs = append(jobs, blockJob{col: col, row: row, first: i, last: i + 1, points: 1})
	}
	return jobs
}

// pipeline is one bake's state, shared by its stages.
type pipeline struct {
	cfg      Config
	dem      *heightmap.Grid
	g        quadpvs.Geometry
	model    *horizon.Model
	workers  int
	sample   int // hidden cells sampled on every sample-th quad index
	span     quadtree.Span
	caps     []compress.Cap
	prices   []*pricing // coded outputs' (nil for flat ones)
	sink     sink
	wr       *writer
	hier     quadpvs.Layout
	builder  *quadpvs.HierarchyBuilder
	order    [][2]int32 // the span's points in Morton order
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
// CheckHeaders returns an error naming the output when a reader would
// refuse the header of one of cfg's stores (compress.Header.Validate):
// Run calls it before any work; a command may call it before projecting
// the bake's time.
func CheckHeaders(cfg Config) error {
	for _, o := range cfg.Outputs {
		if err := headerFor(cfg.DEM, cfg.Params, o).Validate(); err != nil {
			return fmt.Errorf("bake: %s: readers would refuse the store's header: %w", o.Path, err)
		}
	}
	return nil
}

func newPipeline(ctx context.Context, cfg Config) (*pipeline, error) {
	dem := cfg.DEM
	g, err := geometry(cfg)
	if err != nil {
		return nil, err
	}
	model := cfg.model
	if model == nil {
		if model, err = newModel(cfg); err != nil {
			return nil, err
		}
	}
	if err := CheckHeaders(cfg); err != nil {
		return nil, err
	}
	pl := &pipeline{cfg: cfg, dem: dem, g: g, model: model, workers: cfg.Workers, sample: cfg.HiddenSample,
		span: quadtree.Span{Top: g.K, Last: -1}, prices: make([]*pricing, len(cfg.Outputs)), hier: g.Layout()}
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
	if pl.builder, err = quadtree.NewSpanBuilder(g, pl.span, pl.emit); err != nil {
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
			lanes |= 1 << ((int(c[1])-jb.row)*horizon.BlockSide + int(c[0]) - jb.col)
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
				col, row := int(c[0]), int(c[1])
				tv[row*pl.dem.Width+col] = uint32(visible[(row-jb.row)*horizon.BlockSide+col-jb.col])
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
					col, row := int(c[0]), int(c[1])
					b := (row-jb.row)*horizon.BlockSide + col - jb.col
					if err := pl.builder.Add(col, row, &bt.trees[b]); err != nil {
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
