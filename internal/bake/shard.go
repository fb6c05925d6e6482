package bake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/inputfile"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// MaxShards bounds a bake's shard count (compress.MaxShards, checked again
// when a partial file is read).
const MaxShards = compress.MaxShards

// quadsPerShard is how many quads of the split level each shard gets at
// least on average, so that contiguous ranges can balance points to within
// a sixteenth of a shard's share.
const quadsPerShard = 16

// Plan splits a terrain's hierarchy between shards: each shard owns a
// contiguous range of the quads of one level L in Morton order, and so
// whole subtrees of the hierarchy (thesis §3.2: every quad's PVS is the
// union of its children's), which it bakes like a whole bake bakes the
// terrain. L is the highest level with at least 16 quads per shard (0 when
// even the cells are fewer); ranges are balanced by points with data
// (nodata cells cost next to nothing), or by cells when none has data.
type Plan struct {
	Level  int   // L
	Quads  int   // quads of level L
	First  []int // len n+1: shard i owns the level-L quads of Morton ranks [First[i], First[i+1])
	Cells  []int // len n+1: and the cells of Morton ranks [Cells[i], Cells[i+1])
	Points []int // len n: cells with data per shard
}

// PlanShards plans a bake of geometry g (nodata: per-cell flags, row-major,
// or nil) in n shards. Errors: n outside 1…MaxShards or above the cell
// count.
func PlanShards(g quadpvs.Geometry, nodata []bool, n int) (Plan, error) {
	cells := g.Width * g.Height
	if n < 1 || n > MaxShards || n > cells {
		return Plan{}, fmt.Errorf("bake: %d shards for %d points: want 1 to %d", n, cells, min(cells, MaxShards))
	}
	level := 0
	for l := g.K; l >= 0; l-- {
		if c, r := g.QuadsAcross(l); c*r >= quadsPerShard*n {
			level = l
			break
		}
	}
	quads := g.MortonQuads(level, nil)
	count := make([]int, len(quads)) // cells per quad
	valid := make([]int, len(quads)) // cells with data per quad
	total := 0
	for j, q := range quads {
		x0, y0 := int(q[0])<<level, int(q[1])<<level
		x1, y1 := min(x0+1<<level, g.Width), min(y0+1<<level, g.Height)
		count[j] = (x1 - x0) * (y1 - y0)
		valid[j] = count[j]
		if nodata != nil {
			for y := y0; y < y1; y++ {
				for _, nd := range nodata[y*g.Width+x0 : y*g.Width+x1] {
					if nd {
						valid[j]--
					}
				}
			}
		}
		total += valid[j]
	}
	weight := valid
	if total == 0 {
		weight, total = count, cells
	}
	p := Plan{Level: level, Quads: len(quads), First: make([]int, n+1), Cells: make([]int, n+1), Points: make([]int, n)}
	// Shard i starts at the first quad whose points before it reach i/n of
	// the total.
	sum, cell, j := 0, 0, 0
	for i := 1; i <= n; i++ {
		for j < len(quads) && (i == n || int64(sum)*int64(n) < int64(i)*int64(total)) {
			sum += weight[j]
			cell += count[j]
			p.Points[i-1] += valid[j]
			j++
		}
		p.First[i], p.Cells[i] = j, cell
	}
	return p, nil
}

// Span returns the part of the hierarchy shard i builds: its cells, up to
// the plan's level.
func (p Plan) Span(i int) quadtree.Span {
	return quadtree.Span{Base: 0, Top: p.Level, First: p.Cells[i], Last: p.Cells[i+1]}
}

// Header returns shard i's partial file header for a bake of dem with
// parameters vp into outputs, sampling hidden cells on every sample-th quad.
func (p Plan) Header(dem *heightmap.Grid, vp horizon.Params, outputs []Output, i, sample int) compress.PartHeader {
	h := compress.PartHeader{
		Shard: i, Shards: len(p.Points), Level: p.Level, First: p.First[i], Last: p.First[i+1], Points: p.Points[i],
		DEM: compress.DEMHash(dem.Width, dem.Height, dem.Elev, dem.Nodata), HiddenSample: sample,
	}
	for _, o := range outputs {
		h.Outputs = append(h.Outputs, compress.PartOutput{Label: o.Label, Store: headerFor(dem, vp, o)})
	}
	return h
}

// part is the sink of one shard: its partial file.
type part struct {
	t *atomicfile.Temp
	w *compress.PartWriter
}

// createPart starts the partial file at path; shard 0's carries the grid.
func createPart(path string, h compress.PartHeader, dem *heightmap.Grid) (*part, error) {
	t, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	var elev []float32
	if h.Shard == 0 {
		elev = dem.Elev
	}
	w, err := compress.NewPartWriter(t, h, elev, dem.Nodata)
	if err != nil {
		t.Abort()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &part{t, w}, nil
}

func (p *part) add(r *capped, root *quadpvs.Tree) error {
	if err := p.w.Add(r.q, r.out, root); err != nil {
		return fmt.Errorf("write %s: %w", p.t.Path, err)
	}
	return nil
}

func (p *part) commit(tally []compress.Tally) ([]compress.Stats, error) {
	if err := p.w.Close(compress.PartStats{Outputs: tally}); err != nil {
		p.t.Abort()
		return nil, fmt.Errorf("write %s: %w", p.t.Path, err)
	}
	stats := make([]compress.Stats, len(tally))
	for i, t := range tally {
		stats[i] = t.Stats()
	}
	return stats, atomicfile.CommitAll([]*atomicfile.Temp{p.t})
}

func (p *part) abort() { p.t.Abort() }

// ErrBadPartial is wrapped by Join's errors about a partial file whose
// records, though readable, are not what its header promises.
var ErrBadPartial = errors.New("not a usable partial bake")

// ErrMismatch is wrapped by Join's errors about partials that do not belong
// together: another bake's, a shard given twice, or a shard missing.
var ErrMismatch = errors.New("partials do not belong together")

// Partial is an opened partial file, read up to its first quad.
type Partial struct {
	Path string
	*compress.PartReader
	f *os.File
}

// OpenPartial opens the partial file at path and reads its header. Errors
// name the path.
func OpenPartial(path string) (*Partial, error) {
	if err := inputfile.Check(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		var r *compress.PartReader
		if r, err = compress.NewPartReader(f, fi.Size()); err == nil {
			return &Partial{path, r, f}, nil
		}
	}
	f.Close()
	return nil, fmt.Errorf("%s: %w", path, err)
}

// Close closes the file.
func (p *Partial) Close() error { return p.f.Close() }

// CheckPartials checks that parts are the N shards of one bake, each once,
// and returns them ordered by shard index. Errors wrap ErrMismatch and name
// the files and the first field that differs, or the shards missing.
func CheckPartials(parts []*Partial) ([]*Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partial files: %w", ErrMismatch)
	}
	a := parts[0]
	n := a.Header.Shards
	byIndex := make([]*Partial, n)
	for _, b := range parts {
		if d := differ(a.Header, b.Header); d != "" {
			return nil, fmt.Errorf("%s and %s differ in %s: they come from different bakes: %w", a.Path, b.Path, d, ErrMismatch)
		}
		i := b.Header.Shard
		if c := byIndex[i]; c != nil {
			return nil, fmt.Errorf("shard %d/%d given twice (%s, %s): %w", i, n, c.Path, b.Path, ErrMismatch)
		}
		byIndex[i] = b
	}
	var missing []string
	for i, p := range byIndex {
		if p == nil {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		list := strings.Join(missing[:min(len(missing), 10)], ", ")
		if len(missing) > 10 {
			list += fmt.Sprintf(", … (%d in all)", len(missing))
		}
		return nil, fmt.Errorf("shard %s of %d (0-based) missing: bake it with --shard %s/%d and join all %d: %w",
			list, n, missing[0], n, n, ErrMismatch)
	}
	for i, p := range byIndex {
		if (i == 0 && p.Header.First != 0) || (i > 0 && p.Header.First != byIndex[i-1].Header.Last) {
			return nil, fmt.Errorf("%s: shard %d/%d starts at quad %d, shard %d ends at %d: %w",
				p.Path, i, n, p.Header.First, i-1, byIndex[max(i-1, 0)].Header.Last, ErrMismatch)
		}
	}
	if byIndex[0].Elev == nil {
		return nil, fmt.Errorf("%s: shard 0 carries no elevations: %w", byIndex[0].Path, ErrMismatch)
	}
	return byIndex, nil
}

// differ names the first field in which two shards' headers differ where
// they must agree, or returns "".
func differ(a, b compress.PartHeader) string {
	switch {
	case a.DEM != b.DEM:
		return "DEM contents (SHA-256 " + a.DEM[:min(12, len(a.DEM))] + "… vs " + b.DEM[:min(12, len(b.DEM))] + "…)"
	case a.Shards != b.Shards:
		return fmt.Sprintf("shard count (%d vs %d)", a.Shards, b.Shards)
	case a.Level != b.Level:
		return fmt.Sprintf("split level (%d vs %d)", a.Level, b.Level)
	case a.HiddenSample != b.HiddenSample:
		return "hidden-cell sampling"
	case len(a.Outputs) != len(b.Outputs):
		return fmt.Sprintf("number of outputs (%d vs %d)", len(a.Outputs), len(b.Outputs))
	}
	for i, oa := range a.Outputs {
		ob := b.Outputs[i]
		sa, sb := oa.Store, ob.Store
		switch {
		case oa.Label != ob.Label || sa.BudgetBytes != sb.BudgetBytes || sa.Cap != sb.Cap:
			return fmt.Sprintf("budgets (%s vs %s)", oa.Label, ob.Label)
		case sa.Params.Horizon().LOS != sb.Params.Horizon().LOS:
			return fmt.Sprintf("visibility model (%s vs %s)", sa.Params.ModelName(), sb.Params.ModelName())
		case sa.Params.LOSVersion != sb.Params.LOSVersion || sa.Params.LOS != sb.Params.LOS:
			return fmt.Sprintf("visibility model version (%s vs %s: builds whose model bakes other bytes)", sa.Params.ModelName(), sb.Params.ModelName())
		case sa.Params != sb.Params:
			return fmt.Sprintf("visibility parameters (%+v vs %+v)", sa.Params, sb.Params)
		case sa.Window != sb.Window:
			return fmt.Sprintf("window (%v vs %v)", sa.Window, sb.Window)
		case sa.Source != sb.Source:
			return fmt.Sprintf("DEM path (%s vs %s)", sa.Source, sb.Source)
		case !sameLoad(sa.Load, sb.Load):
			return "loading flags (cell size, height scale or RAW layout)"
		case !reflect.DeepEqual(sa.LonLat, sb.LonLat):
			return "lon/lat grid (georeferencing)"
		case !reflect.DeepEqual(sa.Engine, sb.Engine):
			return "engine frame (--engine)"
		case withoutLoad(sa) != withoutLoad(sb):
			return "store header (grid spacing, georeferencing or height scale)"
		}
	}
	return ""
}

// sameLoad reports whether two headers' loading flags are equal (both
// absent, or equal values).
func sameLoad(a, b *compress.LoadFlags) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// withoutLoad returns h without its loading flags and lon/lat grid,
// pointers, so that headers compare by value, and with its encoding
// written out (a header read back names the flat encoding a bake's leaves
// empty).
func withoutLoad(h compress.Header) compress.Header {
	h.Load, h.LonLat, h.Engine = nil, nil, nil
	if h.Encoding == "" {
		h.Encoding = compress.Encoding
	}
	return h
}

// JoinConfig is one join: the partial files of every shard of a bake, in
// any order, and the path of each output store (the bake's outputs, in the
// order of the partials' headers).
type JoinConfig struct {
	Parts []*Partial
	Paths []string
	// Progress, when set, is called after each subtree with the subtrees
	// joined and the total.
	Progress func(done, total int)
}

// Join writes the stores of a sharded bake from its shards' partial files:
// each shard's capped subtrees copied as they are, the levels above them
// merged from the subtrees' roots, capped and written, in the order a
// single bake writes them, so that each store is byte-identical to the
// single bake's. Every store is complete and renamed into place, or none
// is. Errors name the file and wrap ErrMismatch for partials that do not
// belong together, *compress.PartError for unreadable ones, ErrBadPartial
// for records that do not fit their header, and *quadpvs.FormatError for
// malformed trees.
func Join(ctx context.Context, cfg JoinConfig) ([]compress.Stats, error) {
	parts, err := CheckPartials(cfg.Parts)
	if err != nil {
		return nil, err
	}
	h0, p0 := parts[0].Header, parts[0]
	if len(cfg.Paths) != len(h0.Outputs) {
		return nil, fmt.Errorf("bake: %d paths for %d outputs", len(cfg.Paths), len(h0.Outputs))
	}
	s0 := h0.Outputs[0].Store
	if compress.DEMHash(s0.Width, s0.Height, p0.Elev, p0.Nodata) != h0.DEM {
		return nil, fmt.Errorf("%s: its elevations do not match its DEM hash: %w", p0.Path, ErrBadPartial)
	}
	g, err := quadpvs.NewGeometry(s0.Width, s0.Height)
	if err != nil {
		return nil, err
	}
	L := h0.Level
	hier := g.Layout()
	var cp *capper // set below, before the first Add
	var wr *writer
	var cr capped
	upper, err := quadtree.NewSpanBuilder(g, quadtree.Span{Base: L, Top: g.K, Last: -1}, func(l, x, y int, t *quadpvs.Tree) error {
		if l == L {
			return nil // the subtree's root, written with its subtree
		}
		if err := cp.cap(hier.QuadIndex(l, x, y), 0, t, nil, &cr); err != nil {
			return err
		}
		return wr.write(&cr, false)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", p0.Path, err, ErrBadPartial)
	}
	roots := upper.Order()
	if last := parts[len(parts)-1]; last.Header.Last != len(roots) {
		return nil, fmt.Errorf("%s: shards cover %d quads of level %d, a %d×%d terrain has %d: %w",
			last.Path, last.Header.Last, L, g.Width, g.Height, len(roots), ErrMismatch)
	}
	if h0.HiddenSample < 1 {
		return nil, fmt.Errorf("%s: hidden-cell sampling %d: %w", p0.Path, h0.HiddenSample, ErrBadPartial)
	}
	var st stores
	defer func() { st.abort() }()
	for i, o := range h0.Outputs {
		out, err := createOutput(cfg.Paths[i], o.Store, g.QuadCount(), p0.Elev, p0.Nodata)
		if err != nil {
			return nil, err
		}
		st = append(st, store{flat: out})
	}
	caps := make([]compress.Cap, len(h0.Outputs))
	for i, o := range h0.Outputs {
		caps[i] = o.Store.Cap
	}
	cp, wr = newCapper(g, caps, make([]*pricing, len(caps)), h0.HiddenSample), &writer{sink: st, tally: make([]compress.Tally, len(caps))}
	j := newJoiner(g, hier, L)
	var root quadpvs.Tree
	total := wr.tally // the upper levels' tallies so far; the shards' add to them
	for _, p := range parts {
		for r := p.Header.First; r < p.Header.Last; r++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			x, y := int(roots[r][0]), int(roots[r][1])
			if err := j.subtree(p, [2]int{x, y}, st, &root); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Path, err)
			}
			if err := upper.Add(x, y, &root); err != nil {
				return nil, err
			}
			if cfg.Progress != nil {
				cfg.Progress(r+1, len(roots))
			}
		}
		if rec, err := p.Next(); err != io.EOF {
			if err == nil {
				err = fmt.Errorf("quad %d after the shard's last subtree: %w", rec.Q, ErrBadPartial)
			}
			return nil, fmt.Errorf("%s: %w", p.Path, err)
		}
		for i, t := range p.Stats.Outputs {
			total[i].Add(t)
		}
	}
	if !upper.Done() {
		return nil, errors.New("bake: join incomplete")
	}
	stats, err := st.commit(total)
	if err != nil {
		return nil, err
	}
	st = nil
	return stats, nil
}

// joiner copies a shard's subtrees into the stores, checking each record.
type joiner struct {
	g     quadpvs.Geometry
	hier  quadpvs.Layout
	level int
	tree  quadpvs.Tree
}

func newJoiner(g quadpvs.Geometry, hier quadpvs.Layout, level int) *joiner {
	return &joiner{g: g, hier: hier, level: level}
}

// subtree copies the records of the subtree of level-L quad rq from p into
// the stores, and leaves its root's uncapped tree in root. The records must
// be quads of that subtree, ending with its root. Copied trees get the
// store reader's checks (quadtree.CheckCodes); roots, which are merged, the
// full one.
func (j *joiner) subtree(p *Partial, rq [2]int, st stores, root *quadpvs.Tree) error {
	want := j.hier.QuadIndex(j.level, rq[0], rq[1])
	for {
		rec, err := p.Next()
		if err == io.EOF {
			return fmt.Errorf("ends before quad %d's subtree does: %w", want, ErrBadPartial)
		}
		if err != nil {
			return err
		}
		l, x, y, ok := j.locate(rec.Q)
		if !ok || l > j.level || x>>(j.level-l) != rq[0] || y>>(j.level-l) != rq[1] || (rec.Q == want) != (rec.Root != nil) {
			return fmt.Errorf("quad %d where the subtree of quad %d was expected: %w", rec.Q, want, ErrBadPartial)
		}
		for i, t := range rec.Trees {
			if err := quadtree.CheckCodes(j.g, t.Codes, t.N, t.Nodes, &j.tree); err != nil {
				return fmt.Errorf("quad %d: %w", rec.Q, err)
			}
			if err := st[i].flat.w.Add(rec.Q, &j.tree); err != nil {
				return fmt.Errorf("write %s: %w", st[i].flat.t.Path, err)
			}
		}
		if rec.Root != nil {
			if err := j.check(*rec.Root, root); err != nil {
				return fmt.Errorf("quad %d: %w", rec.Q, err)
			}
			return nil
		}
	}
}

// check rebuilds tree t into dst with the full check (quadtree.FromCodes),
// for a root, which is merged, and its node count.
func (j *joiner) check(t compress.PartTree, dst *quadpvs.Tree) error {
	if err := quadtree.FromCodes(j.g, t.Codes, t.N, dst); err != nil {
		return err
	}
	if dst.Nodes() != t.Nodes {
		return fmt.Errorf("%d nodes recorded, %d present: %w", t.Nodes, dst.Nodes(), ErrBadPartial)
	}
	return nil
}

// locate returns quad index q's level and position.
func (j *joiner) locate(q int) (l, x, y int, ok bool) {
	ls := j.hier.LevelStart
	if q < 0 || q >= ls[len(ls)-1] {
		return 0, 0, 0, false
	}
	l, _ = slices.BinarySearch(ls, q+1)
	l--
	c, _ := j.g.QuadsAcross(l)
	i := q - ls[l]
	return l, i % c, i / c, true
}
