// Package grow computes frontier sets (thesis §3.5): for two players at
// terrain points A and B, regions F_A ∋ A and F_B ∋ B such that no point of
// one sees any point of the other, grown over the quad hierarchy of a baked
// hierarchical PVS with lossless or lossy merges, and the simple
// point-by-point baseline of §4.1.
//
// # Both directions
//
// Sector sampling makes the baked PVSs slightly asymmetric (a sees b while b
// does not see a, for about 1% of pairs at S = 1024), and the thesis checks
// one direction only. Here a quad Q joins X's frontier only when (1) the
// merged PVS of the other frontier Y marks Q hidden — no point of Y sees Q —
// and (2) Q's own PVS marks every cell of Y hidden — no point of Q sees Y
// (quadpvs.Tree.AnyVisible over Y's region, pruned to Y's outline). So the
// guarantee holds in both directions for the baked PVSs without making them
// symmetric at bake time, which would need every per-point PVS in memory at
// once. Step 1 checks both directions the same way, each with the quad's
// PVS or an ancestor quad's: a quad's PVS holds its cells' (§3.2) and a cap
// only turns hidden codes visible, so an ancestor that marks the other
// quad hidden answers for the quad, without decoding its tree from a coded
// store.
//
// A Grower is built once per store and is safe for concurrent use; each
// goroutine passes its own Scratch, reused across queries.
package grow

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// Method selects how frontiers grow.
type Method uint8

const (
	Hierarchical Method = iota // over the quad hierarchy (§3.5)
	Simple                     // point by point (§4.1 baseline)
)

func (m Method) String() string {
	if m == Simple {
		return "simple"
	}
	return "hierarchical"
}

// Order selects the queue discipline of step 2.
type Order uint8

const (
	FIFO   Order = iota // first in, first out (the thesis's default)
	Ground              // lowest mean ground height first (the thesis's suggestion for cities)
)

// Options of one query; the zero value is hierarchical growing with lossless
// merges, FIFO queues, 4-neighbours, no step 3 and at most DefaultMaxSteps
// quads considered.
type Options struct {
	Method     Method
	Merge      quadpvs.Mode
	GrowLarger bool // step 3: keep growing the frontier whose queue is not empty, without merging
	Order      Order
	Neighbours int // 4 or 8; 0 means 4
	// MaxSteps bounds the quads a query considers in steps 2 and 3 of
	// §3.5: 0 is DefaultMaxSteps, Unbounded (any negative value) no bound.
	// A query that reaches it stops and returns the frontiers grown so far
	// (Result.Truncated): every quad joined a side only when hidden both
	// ways from the other side, so they are a valid frontier set, only
	// smaller. It bounds the worst cases, where growth degenerates into
	// single cells, each merged into a large PVS (lossless merges of
	// thousands of codes).
	MaxSteps int
}

// DefaultMaxSteps is the bound of Options.MaxSteps 0: the quads a query
// considers at most unless told otherwise. At 125 every query of the
// thesis benchmark (§4, 10,500 pairs per case, both terrains, every limit
// and accounting) took at most 16 ms on one core (bench/results), where
// the unbounded lossless growth took up to 3 s on the urban window's
// coded 0.1 GiB store.
const DefaultMaxSteps = 125

// Unbounded, as Options.MaxSteps, lets a query grow until its queues are
// empty (§3.5 as the thesis states it).
const Unbounded = -1

// Errors for points that cannot hold a player.
var (
	ErrOutside = errors.New("grow: point outside the grid")
	ErrNodata  = errors.New("grow: point on a nodata cell")
	// ErrIdentical is no longer returned: two players in one cell see
	// each other (Result.MutuallyVisible). Kept for callers that test it.
	ErrIdentical = errors.New("grow: the two points are the same cell")
	ErrOptions   = errors.New("grow: invalid options")
)

// Quad is a square of 2^Level cells whose top-left cell is (X·2^Level,
// Y·2^Level) on the store's grid; it may reach past the grid's edge, whose
// cells beyond are not part of it.
type Quad struct {
	Level, X, Y int
}

// Overlaps reports whether quads q and p share a cell: since quads are
// aligned, whether one holds the other.
func (q Quad) Overlaps(p Quad) bool {
	if p.Level < q.Level {
		p, q = q, p
	}
	d := p.Level - q.Level
	return q.X>>d == p.X && q.Y>>d == p.Y
}

// Parent returns the quad of level q.Level+1 that holds q.
func (q Quad) Parent() Quad { return Quad{q.Level + 1, q.X >> 1, q.Y >> 1} }

// Morton returns the Morton code of q's top-left cell (column bits even,
// row bits odd): the quads inside q are those whose code lies in
// [q.Morton(), q.Morton()+4^q.Level) and whose level is at most q's.
func (q Quad) Morton() uint64 { return quadpvs.MortonCode(q.Col(), q.Row()) }

// Holds reports whether quad q holds cell (col, row).
func (q Quad) Holds(col, row int) bool { return col>>q.Level == q.X && row>>q.Level == q.Y }

// Col, Row and Size give the quad in cells: top-left cell and side.
func (q Quad) Col() int  { return q.X << q.Level }
func (q Quad) Row() int  { return q.Y << q.Level }
func (q Quad) Size() int { return 1 << q.Level }

// Frontier is one player's region.
type Frontier struct {
	Col, Row int    // the player's cell
	Quads    []Quad // disjoint quads, sorted by Morton order of their first cell
	Points   int    // terrain cells in the quads
	g        quadpvs.Geometry
	morton   []uint64 // Morton code of each quad's first cell, for Contains
}

// Contains reports whether cell (col,row) is in the frontier, in O(log n)
// for n quads.
func (f *Frontier) Contains(col, row int) bool {
	if col < 0 || row < 0 || col >= f.g.Width || row >= f.g.Height {
		return false
	}
	m := quadpvs.MortonCode(col, row)
	lo, hi := 0, len(f.morton)
	for lo < hi { // first quad starting after m
		mid := (lo + hi) / 2
		if f.morton[mid] > m {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == 0 {
		return false
	}
	q := f.Quads[lo-1]
	return m < f.morton[lo-1]+1<<(2*q.Level)
}

// AppendCells appends the frontier's terrain cells, (col,row), quad by quad.
func (f *Frontier) AppendCells(dst [][2]int) [][2]int {
	for _, q := range f.Quads {
		for r := q.Row(); r < min(q.Row()+q.Size(), f.g.Height); r++ {
			for c := q.Col(); c < min(q.Col()+q.Size(), f.g.Width); c++ {
				dst = append(dst, [2]int{c, r})
			}
		}
	}
	return dst
}

// Result is a query's answer. When MutuallyVisible, both frontiers are
// empty.
type Result struct {
	MutuallyVisible bool
	A, B            Frontier
	Elapsed         time.Duration
	Steps           int  // quads considered in steps 2 and 3
	Truncated       bool // Options.MaxSteps stopped the growth
	// Lookups counts the quad PVSs the query read: step 1's tests (a
	// quad's and its ancestors', hidesVia) and the trees of the quads
	// found hidden in step 2 (the starting quads' included). With
	// Steps, a measure of a query's work that does not depend on the
	// machine: a coded store decodes at most the trees read and their
	// ancestors (quadpvs.Hierarchy.Decodes).
	Lookups int
}

// Clone returns a deep copy of r, which stays valid after the Scratch and
// Result it came from are reused.
func (r *Result) Clone() Result {
	c := *r
	c.A.Quads, c.A.morton = slices.Clone(r.A.Quads), slices.Clone(r.A.morton)
	c.B.Quads, c.B.morton = slices.Clone(r.B.Quads), slices.Clone(r.B.morton)
	return c
}

// Grower answers frontier queries on one hierarchical PVS.
type Grower struct {
	h      *quadpvs.Hierarchy
	g      quadpvs.Geometry
	elev   []float32 // metres, row-major Width×Height
	nodata []bool    // may be nil

	groundOnce sync.Once
	ground     []float32 // mean elevation of each quad's terrain cells, metres, by quad index (the Ground order's, made on its first use)

	faulted atomic.Pointer[error] // the first fault of a method without an error result

	// pinLevel is the first level a coded hierarchy of this geometry keeps
	// decoded (quadpvs.Geometry.PinnedFrom; K+1 when none): step 1 asks
	// a quad's ancestor there before the quad (mutuallyHidden).
	pinLevel int
}

// New returns a Grower for the hierarchy h of a terrain with elevations elev
// (metres, row-major Width×Height, for the Ground order) and nodata cells
// (nil when none). h, elev and nodata must not change afterwards. It reads
// nothing of h or elev: a store opened in place costs nothing more here.
func New(h *quadpvs.Hierarchy, elev []float32, nodata []bool) (*Grower, error) {
	g := h.G
	if len(elev) != g.Width*g.Height || (nodata != nil && len(nodata) != len(elev)) {
		return nil, fmt.Errorf("grow: %d elevations for a %d×%d grid", len(elev), g.Width, g.Height)
	}
	pin := g.K + 1
	if from := g.PinnedFrom(); from < h.Quads() {
		pin = h.Level(from)
	}
	return &Grower{h: h, g: g, elev: elev, nodata: nodata, pinLevel: pin}, nil
}

// groundOf returns quad index k's mean ground height in metres, computing
// every quad's on the first call: level by level from the cells, each
// quad's sum of its cells' elevations (float64) over their count, 4 bytes
// per quad kept.
func (gr *Grower) groundOf(k int) float32 {
	gr.groundOnce.Do(func() {
		g, h := gr.g, gr.h
		gr.ground = make([]float32, h.Quads())
		copy(gr.ground, gr.elev) // level 0: the cells, row-major as the quads
		sum := make([]float64, len(gr.elev))
		cnt := make([]int32, len(gr.elev))
		for i, e := range gr.elev {
			sum[i], cnt[i] = float64(e), 1
		}
		for l := 1; l < g.Levels(); l++ {
			bc, _ := g.QuadsAcross(l - 1)
			c, r := g.QuadsAcross(l)
			nsum, ncnt := make([]float64, c*r), make([]int32, c*r)
			for y := range r {
				for x := range c {
					i := y*c + x
					for k := range 4 {
						cx, cy := 2*x+k&1, 2*y+k>>1
						if j := cy*bc + cx; cx < bc && j < len(sum) {
							nsum[i] += sum[j]
							ncnt[i] += cnt[j]
						}
					}
					gr.ground[h.LevelStart[l]+i] = float32(nsum[i] / float64(ncnt[i]))
				}
			}
			sum, cnt = nsum, ncnt
		}
	})
	return gr.ground[k]
}

// Err returns the first fault of a Grower method without an error result
// (QuadsHidden, Hides, HidesEach: they then answered "not hidden"),
// wrapping frontiersets.ErrFault, or nil.
func (gr *Grower) Err() error {
	if e := gr.faulted.Load(); e != nil {
		return *e
	}
	return nil
}

// guard is fault.Recover's partner for methods without an error result: a
// fault is kept for Err (a copy, so that err itself stays on the caller's
// stack: the lookups allocate nothing).
func (gr *Grower) guard(err *error) {
	if *err != nil {
		e := *err
		gr.faulted.CompareAndSwap(nil, &e)
	}
}

// Geometry returns the quad geometry of the grower's terrain.
func (gr *Grower) Geometry() quadpvs.Geometry { return gr.g }

// CheckCell returns ErrOutside when cell c (column, row) is not on the
// grid and ErrNodata when the DEM had no data there: the cells no player
// may stand on. Safe for concurrent use.
func (gr *Grower) CheckCell(c [2]int) error {
	g := gr.g
	if c[0] < 0 || c[1] < 0 || c[0] >= g.Width || c[1] >= g.Height {
		return fmt.Errorf("%w: (%d,%d) is not in the %d×%d grid", ErrOutside, c[0], c[1], g.Width, g.Height)
	}
	if gr.nodata != nil && gr.nodata[c[1]*g.Width+c[0]] {
		return fmt.Errorf("%w: (%d,%d)", ErrNodata, c[0], c[1])
	}
	return nil
}
