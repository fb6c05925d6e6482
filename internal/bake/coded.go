package bake

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// A coded output (Output.Coded) is baked straight to a coded store that
// fills its budget, in one bake: every quad's tree is capped at one price
// λ in hidden cells per code (the prefix of its min-loss collapses that
// the price makes, quadpvs.Capper.LossSizes: a global allocation, thesis
// §3.4's memory limit spent across trees) and coded given its parent
// quad's capped tree as soon as that parent is capped (quadtree.CondCoder,
// the blocks streamed into the store). The price and the coder's table
// come from a sample baked first: whole level-3 quads (8×8 cells and their
// 21 unions) spread over the terrain, about 1% of the points, whose trees
// give the codes every price keeps and, coded, the bytes per code. While
// the bake goes on, the blocks written are set against the sample's
// prediction and the price for the quads still to come is raised or
// lowered so that the store fits.

// sampleLevel is the level of the sample's quads.
const sampleLevel = 3

// The sample's bounds: at least minSampleQuads quads, at most
// maxSampleQuads, and no more batches once its trees take maxSampleBytes
// (Tree.Bytes): at 18 m cells and 2 km a sample quad's trees take about
// 400 KB, and the sample is held twice (capped for the coder) while the
// outputs are planned — a 4097² bake's 2,048 quads peaked at 2.4 GB.
const (
	minSampleQuads  = 48
	maxSampleQuads  = 2048
	maxSampleBytes  = 160 << 20
	sampleBatchSize = 32
)

// sampleTrees is one sample quad's trees: its 64 cells (by block k and
// lane b: 16k+b), its 16 level-1 quads (64 + 4k + j), its 4 level-2 quads
// (80 + k) and itself (84).
type sampleTrees [85]quadpvs.Tree

// sampleParent returns the index of sample tree i's parent, −1 for the
// level-3 quad.
func sampleParent(i int) int {
	switch {
	case i < 64:
		k, b := i/16, i%16
		return 64 + 4*k + 2*(b/4/2) + b%4/2
	case i < 80:
		return 80 + (i-64)/4
	case i < 84:
		return 84
	}
	return -1
}

// sampleLevelOf returns the level of sample tree i.
func sampleLevelOf(i int) int {
	switch {
	case i < 64:
		return 0
	case i < 80:
		return 1
	case i < 84:
		return 2
	}
	return 3
}

// bakeSample bakes the sample: every step-th level-3 quad wholly inside the
// terrain in Morton order, taken in bit-reversed order of their ranks (so
// that every prefix spreads over the terrain) in batches of
// sampleBatchSize on workers goroutines, until the sample holds
// maxSampleBytes of trees — checked between batches, so the sample does
// not depend on the goroutines' timing.
func bakeSample(ctx context.Context, model *horizon.Model, dem *heightmap.Grid, g quadpvs.Geometry, workers int) ([]sampleTrees, error) {
	var inside [][2]int
	for _, q := range g.MortonQuads(sampleLevel, nil) {
		if x, y := int(q[0]), int(q[1]); (x+1)<<sampleLevel <= g.Width && (y+1)<<sampleLevel <= g.Height {
			inside = append(inside, [2]int{x, y})
		}
	}
	want := min(max(g.Width*g.Height/100/64, minSampleQuads), maxSampleQuads, len(inside))
	if want == 0 {
		return nil, nil
	}
	step := float64(len(inside)) / float64(want)
	picks := make([][2]int, 0, want)
	shift := 64 - bits.Len(uint(want-1))
	for r := range uint64(1) << (64 - shift) {
		if i := int(bits.Reverse64(r) >> shift); i < want {
			picks = append(picks, inside[int((float64(i)+0.5)*step)])
		}
	}
	mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
	var out []sampleTrees
	held := 0
	for len(out) < want && (held < maxSampleBytes || len(out) < minSampleQuads) {
		k := len(out)
		out = append(out, make([]sampleTrees, min(want-k, sampleBatchSize))...)
		if err := bakeSampleQuads(ctx, model, mask, g, workers, picks[k:len(out)], out[k:]); err != nil {
			return nil, err
		}
		for _, s := range out[k:] {
			for i := range s {
				held += s[i].Bytes()
			}
		}
	}
	return out, nil
}

// bakeSampleQuads bakes the trees of the level-3 quads picks into out.
func bakeSampleQuads(ctx context.Context, model *horizon.Model, mask *horizon.Mask, g quadpvs.Geometry, workers int, picks [][2]int, out []sampleTrees) error {
	want := len(picks)
	var next atomic.Int64
	eg, ctx := errgroup.WithContext(ctx)
	for range min(workers, want) {
		eg.Go(func() error {
			bw := model.NewBlockWorker()
			enc := quadpvs.NewEncoder(g)
			var blk horizon.Block
			var trees [horizon.Lanes + horizon.Unions]quadpvs.Tree
			var m quadpvs.Merger
			var z quadpvs.Normalizer
			var acc, tmp quadpvs.Tree
			for i := int(next.Add(1) - 1); i < want; i = int(next.Add(1) - 1) {
				if err := ctx.Err(); err != nil {
					return err
				}
				s := &out[i]
				x, y := picks[i][0], picks[i][1]
				for k := range 4 {
					bx, by := 2*x+k&1, 2*y+k>>1
					if err := bw.Classify(4*bx, 4*by, mask, &blk); err != nil {
						return err
					}
					enc.EncodeBlockTrees(&blk, 0xffff, 1<<horizon.Unions-1, &trees)
					for b := range horizon.Lanes {
						trees[b].CopyTo(&s[16*k+b])
					}
					for j := range 4 {
						trees[horizon.Lanes+j].CopyTo(&s[64+4*k+j])
					}
					trees[horizon.Lanes+4].CopyTo(&s[80+k])
					if k == 0 {
						trees[horizon.Lanes+4].CopyTo(&acc)
					} else {
						m.MergeInto(&acc, &tmp, &trees[horizon.Lanes+4], quadpvs.Lossless)
					}
				}
				z.Normalize(&s[84], &acc)
			}
			return nil
		})
	}
	return eg.Wait()
}

// pricing is one coded output's price: the sample's prediction of the
// block bytes a quad of each level takes at each step of the price ladder,
// and the control that keeps the store within its budget.
type pricing struct {
	budget  int64
	ladder  []float64 // prices λ, hidden cells per code
	ceiling int       // codes any tree keeps at most
	coder   *quadtree.CondCoder
	cache   int64       // the store's cache of decoded trees, bytes
	pred    [][]float64 // [level][step]: predicted block bytes per quad
	pinPred []float64   // [step]: predicted bytes of the pinned levels decoded
	quads   []int       // per level
	pinFrom int         // first pinned quad

	// The steps, by checkpoint: the quads of job j (a block of observers)
	// are capped at sched[j/checkpointJobs], which the writer sets when
	// it reaches the checkpoint before — so that the bake gives the same
	// bytes however its goroutines run.
	mu      sync.Mutex
	cond    *sync.Cond
	sched   []int32
	stopped bool // the bake ended: nobody waits any more

	// The writer's (one goroutine): what was written so far.
	done     []int   // quads coded, per level
	used     int64   // block bytes written
	predUsed float64 // their prediction
	pinned   int64   // pinned trees' decoded bytes (Tree.Bytes and 16)
	pinDone  int
	start    int // the step the sample chose: the control stays within 8 below and 32 above
	steps    int64
}

// fixed returns the store's memory besides the blocks and the pinned
// trees: the block index (8 bytes per quad), the coder's tables, the cache.
func (p *pricing) fixed() int64 {
	q := 0
	for _, n := range p.quads {
		q += n
	}
	return 8*int64(q) + quadtree.CondCoderBytes + p.cache
}

// plan prices output o from the sample: the codes every step of the
// ladder keeps per sample tree (LossSizes), then, at a chosen step, the
// sample capped and coded given its capped parents — the coder's table
// from those trees (NewCondCoderCovering: any tree codes), the bytes per
// code per level measured — and the step chosen again from that, up to
// three times. Errors: a budget that cannot hold even the smallest trees.
func plan(sample []sampleTrees, g quadpvs.Geometry, o Output) (*pricing, error) {
	h := g.Layout()
	p := &pricing{budget: o.Budget, ceiling: o.Cap.Codes, cache: compress.DefaultCacheBytes(o.Budget), pinFrom: g.PinnedFrom()}
	for l := range g.Levels() {
		p.quads = append(p.quads, h.LevelStart[l+1]-h.LevelStart[l])
	}
	p.done = make([]int, len(p.quads))
	p.ladder = compress.PriceLadder(float64(g.Width) * float64(g.Height))
	steps := len(p.ladder)
	// Codes per sample tree at every step, by level.
	codes := make([][]int64, sampleLevel+1) // integers: the sums do not depend on the goroutines' order
	for l := range codes {
		codes[l] = make([]int64, steps)
	}
	counts := make([]int, sampleLevel+1)
	var mu sync.Mutex
	if err := parallel(len(sample), func() func(i int) error {
		c := quadpvs.Capper{G: g, CostCodes: true}
		sizes := make([]int32, steps)
		local := make([][]int64, sampleLevel+1)
		for l := range local {
			local[l] = make([]int64, steps)
		}
		return func(i int) error {
			for l := range local {
				clear(local[l])
			}
			for k := range sample[i] {
				if err := c.LossSizes(sizes, nil, &sample[i][k], p.ceiling, false, 1, p.ladder); err != nil {
					return err
				}
				l := sampleLevelOf(k)
				for j, n := range sizes {
					local[l][j] += int64(n)
				}
			}
			mu.Lock()
			for l := range local {
				for j := range steps {
					codes[l][j] += local[l][j]
				}
			}
			mu.Unlock()
			return nil
		}
	}); err != nil {
		return nil, err
	}
	for k := range 85 {
		counts[sampleLevelOf(k)] += len(sample)
	}
	// Bytes per code by level (levels above the sample's take level 2's),
	// first guessed, then measured at the step chosen.
	bpc := []float64{0.07, 0.07, 0.07}
	overhead := []float64{6, 6, 6}
	j := 0
	for round := 0; round < 3; round++ {
		p.pred = make([][]float64, len(p.quads))
		for l := range p.pred {
			sl := min(l, sampleLevel)
			bl := min(l, 2)
			p.pred[l] = make([]float64, steps)
			for s := range steps {
				mean := float64(codes[sl][s]) / float64(counts[sl])
				p.pred[l][s] = mean*bpc[bl] + overhead[bl]
			}
		}
		p.pinPred = make([]float64, steps)
		for s := range steps {
			for l := range p.quads {
				lo := h.LevelStart[l]
				if n := h.LevelStart[l+1] - max(lo, p.pinFrom); n > 0 {
					mean := float64(codes[min(l, sampleLevel)][s]) / float64(counts[min(l, sampleLevel)])
					p.pinPred[s] += float64(n) * float64(quadtree.BytesFor(int(mean))+16)
				}
			}
		}
		nj, ok := p.choose(0.985)
		if !ok {
			return nil, fmt.Errorf("%w: %s coded for %d quads: even at the highest price the sample predicts %s", compress.ErrBudget,
				compress.FormatBytes(o.Budget), h.Quads(), compress.FormatBytes(int64(p.total(len(p.ladder)-1, 1))))
		}
		if round > 0 && nj == j {
			break
		}
		j = nj
		coder, lb, lc, lbl, err := codeSample(sample, g, p.ceiling, p.ladder[j])
		if err != nil {
			return nil, err
		}
		p.coder = coder
		for l := range 3 {
			if lc[l] > 0 {
				bpc[l] = (lb[l] - lbl[l]) / lc[l]
				overhead[l] = lbl[l] / float64(counts[l])
			}
		}
	}
	p.start = j
	p.cond = sync.NewCond(&p.mu)
	p.sched = []int32{int32(j), int32(j)}
	return p, nil
}

// total returns the memory predicted at step s with the prediction scaled
// by r: blocks, index, tables, cache and pinned trees.
func (p *pricing) total(s int, r float64) float64 {
	t := float64(p.fixed()) + r*p.pinPred[s]
	for l, n := range p.quads {
		t += r * float64(n) * p.pred[l][s]
	}
	return t
}

// choose returns the lowest step whose predicted memory for the quads not
// yet coded, scaled by what the coded ones took against their prediction,
// with the bytes written, fits share of the budget.
func (p *pricing) choose(share float64) (int, bool) {
	r := 1.0
	if p.predUsed > 0 {
		r = min(max(float64(p.used)/p.predUsed, 0.5), 2)
	}
	pinTotal := -p.pinFrom
	for _, n := range p.quads {
		pinTotal += n
	}
	target := share * float64(p.budget)
	for s := range p.ladder {
		t := float64(p.fixed()+p.used+p.pinned) + r*p.pinPred[s]*float64(pinTotal-p.pinDone)/float64(max(pinTotal, 1))
		for l, n := range p.quads {
			t += r * float64(n-p.done[l]) * p.pred[l][s]
		}
		if t <= target {
			return s, true
		}
	}
	return len(p.ladder) - 1, false
}

// codeSample caps every sample tree at price λ, builds a covering coder
// from the capped trees of levels 0 to 2 given their capped parents, and
// codes them: it returns the coder and, per level 0 to 2, the block bytes,
// the codes, and the bytes of the blocks' fixed parts (a header byte, the
// group count and the 4-byte final state).
func codeSample(sample []sampleTrees, g quadpvs.Geometry, ceiling int, price float64) (*quadtree.CondCoder, [3]float64, [3]float64, [3]float64, error) {
	var lb, lc, lbl [3]float64
	capped := make([]sampleTrees, len(sample))
	if err := parallel(len(sample), func() func(i int) error {
		c := quadpvs.Capper{MinLoss: true, G: g, CostCodes: true}
		size := make([]int32, 1)
		return func(i int) error {
			for k := range sample[i] {
				if err := c.CapAtPrices([]*quadpvs.Tree{&capped[i][k]}, size, &sample[i][k], ceiling, 1, []float64{price}); err != nil {
					return err
				}
			}
			return nil
		}
	}); err != nil {
		return nil, lb, lc, lbl, err
	}
	var hist [quadtree.CondContexts][256]uint32
	for i := range capped {
		for k := range 84 {
			quadtree.CondHistogram(&hist, &capped[i][k], &capped[i][sampleParent(k)])
		}
	}
	coder := quadtree.NewCondCoderCovering(&hist)
	var sc quadtree.CondScratch
	var b []byte
	for i := range capped {
		for k := range 84 {
			t := &capped[i][k]
			var err error
			if b, err = coder.AppendScratch(b[:0], t, &capped[i][sampleParent(k)], &sc); err != nil {
				return nil, lb, lc, lbl, err
			}
			l := sampleLevelOf(k)
			lb[l] += float64(len(b))
			lc[l] += float64(t.Len())
			if len(b) > 1 {
				lbl[l] += float64(1 + uvarintLen(uint64((t.Len()-1)/4)) + 4)
			} else {
				lbl[l]++
			}
		}
	}
	return coder, lb, lc, lbl, nil
}

// uvarintLen returns the bytes of v as a uvarint.
func uvarintLen(v uint64) int { return max(1, (bits.Len64(v)+6)/7) }

// parallel runs work(i) for i in [0,n) on GOMAXPROCS goroutines, each
// with the function work returns (its own scratch); the first error.
func parallel(n int, work func() func(i int) error) error {
	var next atomic.Int64
	var eg errgroup.Group
	for range min(n, runtime.GOMAXPROCS(0)) {
		eg.Go(func() error {
			f := work()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return eg.Wait()
}

// checkpointJobs is how many jobs (blocks of observers, 16 points) share a
// step: the writer chooses the next step every this many.
const checkpointJobs = 1024

// price returns the price λ and the step the quads of job job are capped
// at, waiting for the writer to choose it when it has not yet.
func (p *pricing) price(job int) (float64, int32) {
	k := job / checkpointJobs
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.sched) <= k && !p.stopped {
		p.cond.Wait()
	}
	s := p.sched[min(k, len(p.sched)-1)]
	return p.ladder[s], s
}

// reach is the writer's: it has every quad of the jobs before job, and
// chooses the steps of the checkpoints that follow the ones passed.
func (p *pricing) reach(job int) {
	k := job / checkpointJobs
	if len(p.sched) > k+1 {
		return
	}
	s, _ := p.choose(0.995)
	s = min(max(s, p.start-8), p.start+32)
	p.mu.Lock()
	for len(p.sched) <= k+1 {
		p.sched = append(p.sched, int32(s))
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// stop releases whoever waits for a step: the bake ended.
func (p *pricing) stop() {
	p.mu.Lock()
	p.stopped = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// codedOutput is a coded store being written: its pricing, its quads'
// capped trees waiting for their parent's, the writer.
type codedOutput struct {
	path string
	t    *atomicfile.Temp // the temporary file beside path; nil while a resumable bake writes f in its folder
	f    *os.File         // the file written: t's, or the resumable bake's
	// A resumable bake's list of the blocks added (checkpoint.go): per
	// block its quad and length, uint32 little-endian.
	adds     *bufio.Writer
	addsFile *os.File
	addsCRC  uint32 // CRC-32C of the list written so far, for the checkpoint
	w        *compress.CodedWriter
	idx      *os.File // the writer's index until Close (indexSpill)
	hd       compress.Header
	p        *pricing
	g        quadpvs.Geometry
	h        quadpvs.Layout
	pending  [][]pendingTree // [level]: capped trees waiting for their parent
	free     []quadpvs.Tree
	sc       quadtree.CondScratch
	block    []byte
	maxLen   int
}

type pendingTree struct {
	q    int
	step int32
	t    quadpvs.Tree
}

// createCoded starts output o's coded store (index i of the bake's
// outputs): in a temporary file beside its path, or, in a resumable bake
// (ck not nil), in ck's folder, resumed from its checkpoint when there is
// one.
func createCoded(o Output, hd compress.Header, p *pricing, g quadpvs.Geometry, dem *heightmap.Grid, ck *checkpointer, i int) (*codedOutput, error) {
	hd.CacheBytes = p.cache
	c := &codedOutput{path: o.Path, hd: hd, p: p, g: g, h: g.Layout(), pending: make([][]pendingTree, g.Levels())}
	var err error
	if ck == nil {
		if c.t, err = atomicfile.Create(o.Path); err != nil {
			return nil, err
		}
		c.f = c.t.File
		if c.w, err = compress.NewCodedWriter(c.t, hd, c.h.Quads(), p.coder.Table(), dem.Elev, dem.Nodata); err == nil {
			err = c.spillIndex()
		}
		if err != nil {
			c.t.Abort()
			store{coded: c}.dropSpill()
			return nil, fmt.Errorf("write %s: %w", o.Path, err)
		}
		return c, nil
	}
	if err := atomicfile.CheckTarget(o.Path); err != nil {
		return nil, err
	}
	f, adds, ws, err := ck.openCoded(i, c.h.Quads())
	if err != nil {
		return nil, err
	}
	c.f, c.addsFile, c.adds = f, adds, bufio.NewWriterSize(adds, 1<<16)
	if ck.state != nil {
		c.addsCRC = ck.state.Outputs[i].AddsCRC
	}
	if ws != nil {
		c.w, err = compress.ResumeCodedWriter(f, *ws, c.h.Quads())
	} else {
		c.w, err = compress.NewCodedWriter(f, hd, c.h.Quads(), p.coder.Table(), dem.Elev, dem.Nodata)
	}
	if err == nil {
		err = c.spillIndex()
	}
	if err != nil {
		f.Close()
		adds.Close()
		store{coded: c}.dropSpill()
		return nil, fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return c, nil
}

// spillIndex moves the writer's block index to a file beside the one it
// writes (indexSpill).
func (c *codedOutput) spillIndex() error {
	sp, err := indexSpill(c.f.Name())
	if err != nil {
		return err
	}
	c.idx = sp
	return c.w.SetIndexSpill(sp)
}

// publish copies a resumable bake's finished store from its folder into a
// temporary file beside its path, for the commit.
func (c *codedOutput) publish() error {
	t, err := atomicfile.Create(c.path)
	if err != nil {
		return err
	}
	if _, err := c.f.Seek(0, io.SeekStart); err == nil {
		_, err = io.Copy(t, c.f)
	}
	if err != nil {
		t.Abort()
		return err
	}
	c.f.Close()
	c.addsFile.Close()
	c.t = t
	return nil
}

// add takes quad q's capped tree (capped at step s): it codes q's
// children, which wait for it, given it, and keeps it until its parent
// comes (the bake emits a quad's subtree, then the quad).
func (c *codedOutput) add(q int, t *quadpvs.Tree, s int32) error {
	l := c.h.Level(q)
	if l > 0 {
		for _, ch := range c.pending[l-1] {
			if err := c.code(ch, t); err != nil {
				return err
			}
			c.free = append(c.free, ch.t)
		}
		c.pending[l-1] = c.pending[l-1][:0]
	}
	var keep quadpvs.Tree
	if n := len(c.free); n > 0 {
		keep, c.free = c.free[n-1], c.free[:n-1]
	}
	t.CopyTo(&keep)
	c.pending[l] = append(c.pending[l], pendingTree{q, s, keep})
	return nil
}

// code writes pending tree ch's block given its parent's tree and counts
// it against the prediction.
func (c *codedOutput) code(ch pendingTree, parent *quadpvs.Tree) error {
	var err error
	if c.block, err = c.p.coder.AppendScratch(c.block[:0], &ch.t, parent, &c.sc); err != nil {
		return fmt.Errorf("quad %d: %w", ch.q, err)
	}
	if ch.t.Len() > quadtree.MaxCodesPerBlockByte*len(c.block) {
		return fmt.Errorf("quad %d: %d codes in a block of %d bytes, more than readers take (%d per byte)", ch.q, ch.t.Len(), len(c.block), quadtree.MaxCodesPerBlockByte)
	}
	if err := c.w.Add(ch.q, c.block); err != nil {
		return err
	}
	if c.adds != nil {
		var rec [8]byte
		binary.LittleEndian.PutUint32(rec[:], uint32(ch.q))
		binary.LittleEndian.PutUint32(rec[4:], uint32(len(c.block)))
		if _, err := c.adds.Write(rec[:]); err != nil {
			return err
		}
		c.addsCRC = crc32.Update(c.addsCRC, castagnoli, rec[:])
	}
	p := c.p
	l := c.h.Level(ch.q)
	p.done[l]++
	p.used += int64(len(c.block))
	p.predUsed += p.pred[l][ch.step]
	p.steps += int64(ch.step)
	c.maxLen = max(c.maxLen, ch.t.Len())
	if ch.q >= p.pinFrom {
		p.pinned += int64(ch.t.Bytes() + 16)
		p.pinDone++
	}
	return nil
}

// coded returns the quads coded so far.
func (p *pricing) coded() int {
	n := 0
	for _, d := range p.done {
		n += d
	}
	return n
}

// finish codes the top quad (no parent) and closes the store with its
// statistics: its memory (quadpvs.Hierarchy.Bytes of the store read) and
// the allocation in its header: the price at the mean step used.
func (c *codedOutput) finish(tally compress.Tally) (compress.Stats, error) {
	top := c.pending[c.g.K]
	if len(top) != 1 {
		return compress.Stats{}, fmt.Errorf("bake: coded store %s: %d top quads waiting, want 1", c.path, len(top))
	}
	if err := c.code(top[0], nil); err != nil {
		return compress.Stats{}, err
	}
	p := c.p
	st := tally.Stats()
	st.PinnedBytes = p.pinned
	st.MemoryBytes = p.used + p.fixed() + p.pinned
	mean := int(math.Round(float64(p.steps) / float64(max(p.coded(), 1))))
	hd := c.hd
	hd.Cap = compress.Cap{Codes: c.p.ceiling, MinLoss: true}
	hd.Allocation = &compress.Allocation{Policy: "global", Accounting: "coded", CeilingCodes: c.p.ceiling, Threshold: p.ladder[mean], LevelWeight: 1}
	if err := c.w.SetHeader(hd); err != nil {
		return compress.Stats{}, err
	}
	return st, c.w.Close(st)
}
