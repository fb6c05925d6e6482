// Package bake runs the baker's main job: every terrain point's PVS (horizon,
// §3.1) computed in parallel, encoded as predictive quadtrees (quadpvs,
// §3.2), merged up the quad hierarchy in Morton order, capped per output
// budget (§3.4) and streamed into one store file per budget (compress), each
// written to a temporary file and renamed into place when complete.
package bake

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"frontiersets/compress"
	"frontiersets/heightmap"
	"frontiersets/horizon"
	"frontiersets/internal/atomicfile"
	"frontiersets/internal/cli"
	"frontiersets/quadpvs"
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
}

// Config is one bake.
type Config struct {
	DEM     *heightmap.Grid
	Params  horizon.Params
	Workers int // goroutines computing viewsheds; 0 means GOMAXPROCS
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
// the visibility tables (horizon.TableBytes), each worker's scratch (profiles,
// status pyramids, trees), the reorder window of per-point trees, the
// per-level partial unions, each output's quad index — plus 80 MiB for the
// runtime and the output buffers. Against peak RSS with four budgets
// (bench/results/2026-11-22): 316² HGT 137 MB estimated, 120–139 MB
// measured; 1025² HGT 447 MB, 427 MB; the whole 1201² tile with a 2,400 m
// view distance 538 MB, 481–487 MB.
func Estimate(width, height int, p horizon.Params, dx, dy float64, workers, outputs int) int64 {
	w, h := int64(width), int64(height)
	cells := w * h
	tables := horizon.TableBytes(width, height, p.Sectors, p.MaxDistance, dx, dy)
	tree := int64(quadpvs.BytesFor(int(cells*4/3 + 1))) // a worst-case tree
	// Profiles (4 B per midline slot) and the early-stop band (4 B per
	// sector per 16 cells of the longer side), status pyramids, two trees.
	worker := 4*int64(p.Sectors)*(max(w, h)+max(w, h)/16+1) + 2*cells*4/3 + 2*tree
	g, _ := quadpvs.NewGeometry(width, height)
	levels := int64(g.Levels())
	quads := int64(g.QuadCount())
	live := 4*cells + 16*cells + tables + int64(workers)*worker + window(workers)*tree/4 +
		4*levels*tree + int64(outputs)*(16*quads+2<<20)
	return 2*live + 80<<20
}

// window is how many per-point trees may wait for their turn in Morton order.
func window(workers int) int64 { return int64(8 * workers) }

// Run bakes cfg: every output store is complete and renamed into place, or,
// on any error or cancellation, none is (their temporary files are removed).
// It returns each output's statistics.
func Run(ctx context.Context, cfg Config) ([]compress.Stats, error) {
	dem := cfg.DEM
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return nil, err
	}
	model, err := horizon.New(cli.Terrain(dem), cfg.Params)
	if err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sample := cfg.HiddenSample
	if sample <= 0 {
		sample = 16
	}
	span := quadpvs.Span{Top: g.K, Last: -1}
	var sk sink
	if sh := cfg.Shard; sh.Count > 0 {
		plan, err := PlanShards(g, dem.Nodata, sh.Count)
		if err != nil {
			return nil, err
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			return nil, fmt.Errorf("bake: shard %d of %d", sh.Index, sh.Count)
		}
		span = plan.Span(sh.Index)
		sk, err = createPart(sh.Path, plan.Header(dem, cfg.Params, cfg.Outputs, sh.Index, sample), dem)
		if err != nil {
			return nil, err
		}
	} else {
		st, err := createStores(cfg.Outputs, dem, cfg.Params, g.QuadCount())
		if err != nil {
			return nil, err
		}
		sk = st
	}
	defer func() {
		if sk != nil {
			sk.abort()
		}
	}()
	caps := make([]compress.Cap, len(cfg.Outputs))
	for i, o := range cfg.Outputs {
		caps[i] = o.Cap
	}
	qw := newQuadWriter(g, caps, sample, sk)

	hier := quadpvs.NewHierarchy(g) // only for quad indexes
	eg, ctx := errgroup.WithContext(ctx)
	// Finished quads go, copied, from the merging goroutine to a stage that
	// caps them for every output and writes them, in the same order.
	type finished struct {
		q    int
		t    *quadpvs.Tree
		root bool // a shard's subtree root
	}
	fin := make(chan finished, 64)
	finPool := sync.Pool{New: func() any { return new(quadpvs.Tree) }}
	emit := func(l, x, y int, t *quadpvs.Tree) error {
		c := finPool.Get().(*quadpvs.Tree)
		t.CopyTo(c)
		select {
		case fin <- finished{hier.QuadIndex(l, x, y), c, cfg.Shard.Count > 0 && l == span.Top}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	eg.Go(func() error {
		for f := range fin {
			if err := qw.write(f.q, f.t, f.root); err != nil {
				return err
			}
			finPool.Put(f.t)
		}
		return nil
	})
	mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	builder, err := quadpvs.NewSpanBuilder(g, span, emit)
	if err != nil {
		return nil, err
	}
	order := builder.Order()

	type result struct {
		i int
		t *quadpvs.Tree
	}
	pool := sync.Pool{New: func() any { return new(quadpvs.Tree) }}
	jobs := make(chan int)
	results := make(chan result, workers)
	slots := make(chan struct{}, window(workers)) // bounds trees waiting in the reorder buffer
	eg.Go(func() error {
		defer close(jobs)
		for i := range order {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		eg.Go(func() error {
			defer wg.Done()
			wk := model.NewWorker()
			enc := quadpvs.NewEncoder(g)
			lv := horizon.NewLevels(dem.Width, dem.Height)
			for i := range jobs {
				c := order[i]
				t := pool.Get().(*quadpvs.Tree)
				// Nobody stands on, so nobody sees, a nodata cell (mask).
				if err := wk.Classify(c[0], c[1], lv, mask); err != nil {
					return err
				}
				if err := enc.EncodeLevels(lv, t); err != nil {
					return err
				}
				select {
				case results <- result{i, t}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}
	go func() { wg.Wait(); close(results) }()
	eg.Go(func() error {
		defer close(fin)
		pending := map[int]*quadpvs.Tree{}
		next := 0
		for r := range results {
			pending[r.i] = r.t
			for t, ok := pending[next]; ok; t, ok = pending[next] {
				delete(pending, next)
				c := order[next]
				if err := builder.Add(c[0], c[1], t); err != nil {
					return err
				}
				pool.Put(t)
				<-slots
				next++
				if cfg.Progress != nil {
					cfg.Progress(next, len(order))
				}
			}
		}
		if next != len(order) && ctx.Err() == nil {
			return errors.New("bake: a worker stopped early")
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if !builder.Done() {
		return nil, errors.New("bake: hierarchy incomplete")
	}
	if err := sk.commit(qw.tally); err != nil {
		return nil, err
	}
	sk = nil
	stats := make([]compress.Stats, len(qw.tally))
	for i, t := range qw.tally {
		stats[i] = t.Stats()
	}
	return stats, nil
}

// quadWriter caps every finished quad for each output and hands the capped
// trees to a sink, tallying each output's statistics and sampling hidden
// cells kept on every sample-th quad index. The outputs are grouped by
// what their caps count (codes for budgets, nodes) and by their policy
// (deepest-first, min-loss); each group is capped in one pass (CapEach),
// largest cap first.
type quadWriter struct {
	g      quadpvs.Geometry
	caps   []compress.Cap
	sample int
	sink   sink
	tally  []compress.Tally  // per output
	groups [4][]int          // outputs capped on codes, on nodes, then the same with min-loss; by cap, largest first
	capper [2]quadpvs.Capper // deepest-first, min-loss
	walker quadpvs.Walker
	dst    []quadpvs.Tree // per output
	out    []*quadpvs.Tree
	lims   []int
	dsts   []*quadpvs.Tree
	bound  []bool
}

func newQuadWriter(g quadpvs.Geometry, caps []compress.Cap, sample int, sk sink) *quadWriter {
	n := len(caps)
	qw := &quadWriter{g: g, caps: caps, sample: sample, sink: sk, tally: make([]compress.Tally, n),
		dst: make([]quadpvs.Tree, n), out: make([]*quadpvs.Tree, n), bound: make([]bool, n)}
	qw.capper[1] = quadpvs.Capper{MinLoss: true, G: g}
	for i, c := range caps {
		k := 0
		if c.MinLoss {
			k = 2
		}
		switch {
		case c.Codes > 0:
			qw.groups[k] = append(qw.groups[k], i)
		case c.Nodes > 0:
			qw.groups[k+1] = append(qw.groups[k+1], i)
		}
	}
	for _, gr := range qw.groups {
		sort.SliceStable(gr, func(a, b int) bool { return qw.limit(gr[a]) > qw.limit(gr[b]) })
	}
	return qw
}

// limit returns output i's cap (codes or nodes), or MaxInt when none.
func (qw *quadWriter) limit(i int) int {
	c := qw.caps[i]
	switch {
	case c.Codes > 0:
		return c.Codes
	case c.Nodes > 0:
		return c.Nodes
	}
	return math.MaxInt
}

// write caps quad index q's PVS t for every output and hands the trees to
// the sink, with t itself when root (a shard's subtree root).
func (qw *quadWriter) write(q int, t *quadpvs.Tree, root bool) error {
	sampled := q%qw.sample == 0
	before := 0
	if sampled {
		before = qw.walker.HiddenCells(qw.g, t)
	}
	clear(qw.bound)
	for k, gr := range qw.groups {
		codes := k%2 == 0
		size := t.Len()
		if !codes {
			size = t.Nodes()
		}
		qw.lims, qw.dsts = qw.lims[:0], qw.dsts[:0]
		for _, i := range gr {
			if l := qw.limit(i); size > l {
				qw.bound[i] = true
				qw.lims = append(qw.lims, l)
				qw.dsts = append(qw.dsts, &qw.dst[i])
			}
		}
		if len(qw.lims) > 0 {
			if err := qw.capper[k/2].CapEach(qw.dsts, t, qw.lims, codes); err != nil {
				return err
			}
		}
	}
	for i := range qw.out {
		c := t
		if qw.bound[i] {
			c = &qw.dst[i]
		}
		qw.out[i] = c
		qw.tally[i].Tree(c)
		if sampled {
			qw.tally[i].Hidden(before, qw.walker.HiddenCells(qw.g, c))
		}
	}
	var full *quadpvs.Tree
	if root {
		full = t
	}
	return qw.sink.add(q, qw.out, full)
}

// headerFor describes a store of dem baked with p under o's cap.
func headerFor(dem *heightmap.Grid, p horizon.Params, o Output) compress.Header {
	return compress.Header{
		Width: dem.Width, Height: dem.Height, DxM: dem.Dx, DyM: dem.Dy,
		GeoTransform: dem.GeoTransform, HasGeoTransform: dem.HasGeoTransform, CRS: dem.CRS, CRSName: dem.CRSName,
		Source: dem.Source, Window: [4]int{dem.Window.Col, dem.Window.Row, dem.Window.Width, dem.Window.Height},
		ZScale: dem.ZScale, Params: compress.FromHorizon(p), BudgetBytes: o.Budget, Cap: o.Cap,
	}
}

// sink receives the capped trees of every finished quad, one per output,
// in the order the bake finishes them, with the uncapped root of a shard's
// subtree (nil otherwise); commit finishes its files with the outputs'
// tallies and renames them into place, abort removes them.
type sink interface {
	add(q int, trees []*quadpvs.Tree, root *quadpvs.Tree) error
	commit(tally []compress.Tally) error
	abort()
}

// stores is the sink of a whole bake: one store per output.
type stores []*output

func createStores(outputs []Output, dem *heightmap.Grid, p horizon.Params, quads int) (stores, error) {
	var s stores
	for _, oc := range outputs {
		o, err := createOutput(oc.Path, headerFor(dem, p, oc), quads, dem.Elev, dem.Nodata)
		if err != nil {
			s.abort()
			return nil, err
		}
		s = append(s, o)
	}
	return s, nil
}

func (s stores) add(q int, trees []*quadpvs.Tree, _ *quadpvs.Tree) error {
	for i, o := range s {
		if err := o.w.Add(q, trees[i]); err != nil {
			return fmt.Errorf("write %s: %w", o.t.Path, err)
		}
	}
	return nil
}

// commit finishes every store, then makes them their final files all or
// none (atomicfile.CommitAll).
func (s stores) commit(tally []compress.Tally) error {
	temps := make([]*atomicfile.Temp, len(s))
	for i, o := range s {
		if err := o.w.Close(tally[i].Stats()); err != nil {
			s.abort()
			return fmt.Errorf("write %s: %w", o.t.Path, err)
		}
		temps[i] = o.t
	}
	return atomicfile.CommitAll(temps)
}

func (s stores) abort() {
	for _, o := range s {
		o.t.Abort()
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

// OpenStore loads the store at path (compress.Decode), reading it in 1 MiB
// chunks. Errors name the path.
func OpenStore(path string) (*compress.Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s, err := compress.DecodeSize(bufio.NewReaderSize(f, 1<<20), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
