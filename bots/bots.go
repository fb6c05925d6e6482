// Package bots moves simulated players over a terrain for interest
// management experiments (thesis §5.2: n bots moving through the terrain):
// each bot walks from a random start to random waypoints along shortest
// paths over standable cells at a fixed speed, and may respawn (teleport to
// a random standable cell) at a given rate, like deaths in a match. Runs
// are deterministic for a seed; it does no I/O.
//
// A cell is standable when it has data; a step between 8-neighbouring cells
// is walkable when its slope (rise over the metric distance between the
// cells' centres) is at most MaxSlope, so that walls and cliffs are not
// climbed. Bots live on the largest connected set of standable cells.
package bots

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Terrain is the grid bots move on: Width×Height cells, Elev row-major in
// metres, Nodata (nil when none) marking cells without data, Dx and Dy
// metres between columns and rows.
type Terrain struct {
	Width, Height int
	Elev          []float32
	Nodata        []bool
	Dx, Dy        float64
}

// Options of a run.
type Options struct {
	Bots          int     // number of bots, ≥ 1
	Ticks         int     // ticks simulated, ≥ 1
	TickSeconds   float64 // seconds per tick (0.1 at Quake II's 10 Hz)
	SpeedMS       float64 // metres per second along the path
	MaxSlope      float64 // steepest walkable step, rise over run (1 = 45°)
	RespawnPerMin float64 // teleports per bot per minute (0: none)
	Seed          uint64
	// HotSpot draws waypoints near one place (the zero value: none).
	HotSpot HotSpot
}

// HotSpot makes bots converge: each waypoint is, with probability Share,
// a standable cell of the bots' area within RadiusM metres of cell (Col,
// Row) — a contested objective, a market square — and otherwise any
// standable cell, as without it. Bots still start anywhere.
type HotSpot struct {
	Col     int     `json:"col"`
	Row     int     `json:"row"`
	RadiusM float64 `json:"radius_m"`
	Share   float64 `json:"share"` // 0 (none) to 1 (every waypoint)
}

// Defaults returns options that suit a terrain of the given cell spacing:
// people walking (1.4 m/s, slopes up to 45°) on grids finer than 5 m, such
// as urban surface models, and off-road vehicles (15 m/s, slopes up to
// 27°) on coarser ones, such as 1–3″ elevation tiles; 10 Hz ticks, no
// respawns.
func Defaults(dxM, dyM float64) Options {
	o := Options{TickSeconds: 0.1, SpeedMS: 1.4, MaxSlope: 1, Seed: 1}
	if min(dxM, dyM) >= 5 {
		o.SpeedMS, o.MaxSlope = 15, 0.5
	}
	return o
}

// Paths are the bots' states, tick by tick.
type Paths struct {
	Bots, Ticks int
	// Cells[t*Bots+b] is bot b's cell (col,row) at tick t.
	Cells [][2]int32
	// Pos[t*Bots+b] is its position in cells (fractional col,row; the cell
	// is the rounded position), Vel its velocity in cells per tick (zero in
	// the tick of a respawn).
	Pos, Vel [][2]float32
	// Respawned[t*Bots+b] marks a teleport at tick t.
	Respawned []bool
	// Standable is the number of cells of the component bots live on.
	Standable int
}

// ErrNoRoom reports a terrain without a walkable component.
var ErrNoRoom = errors.New("bots: no standable cells")

// Run moves the bots: each starts on a random standable cell, already
// walked a random part of a cell's width along its first route (so that
// bots do not change cells in waves, all in the same ticks), and walks from
// waypoint to waypoint along shortest walkable routes at SpeedMS. Errors:
// option errors, ErrNoRoom (also when the bots' area has no cell within the
// hot spot's radius).
func Run(t Terrain, o Options) (*Paths, error) {
	switch {
	case t.Width < 1 || t.Height < 1 || len(t.Elev) != t.Width*t.Height || (t.Nodata != nil && len(t.Nodata) != len(t.Elev)):
		return nil, fmt.Errorf("bots: %d elevations for a %d×%d grid", len(t.Elev), t.Width, t.Height)
	case !(t.Dx > 0) || !(t.Dy > 0):
		return nil, fmt.Errorf("bots: cell spacing %g×%g m, want > 0", t.Dx, t.Dy)
	case o.Bots < 1 || o.Ticks < 1 || int64(o.Bots)*int64(o.Ticks) > 1<<28:
		return nil, fmt.Errorf("bots: %d bots for %d ticks, want ≥ 1 each and at most 2^28 states", o.Bots, o.Ticks)
	case !(o.TickSeconds > 0) || !(o.SpeedMS > 0) || !(o.MaxSlope > 0) || !(o.RespawnPerMin >= 0):
		return nil, fmt.Errorf("bots: tick %g s, speed %g m/s, slope %g, respawns %g/min: want > 0 (respawns ≥ 0)",
			o.TickSeconds, o.SpeedMS, o.MaxSlope, o.RespawnPerMin)
	case !(o.HotSpot.Share >= 0 && o.HotSpot.Share <= 1):
		return nil, fmt.Errorf("bots: hot spot share %g, want 0 to 1", o.HotSpot.Share)
	case o.HotSpot.Share > 0 && (o.HotSpot.Col < 0 || o.HotSpot.Row < 0 || o.HotSpot.Col >= t.Width || o.HotSpot.Row >= t.Height || !(o.HotSpot.RadiusM > 0)):
		return nil, fmt.Errorf("bots: hot spot at cell (%d,%d) with radius %g m: want a cell of the %d×%d grid and a radius > 0",
			o.HotSpot.Col, o.HotSpot.Row, o.HotSpot.RadiusM, t.Width, t.Height)
	}
	w := newWalker(t, o.MaxSlope)
	comp := w.largest()
	if len(comp) == 0 {
		return nil, ErrNoRoom
	}
	var hot []int32 // the hot spot's cells of the component
	if hs := o.HotSpot; hs.Share > 0 {
		for _, c := range comp {
			if math.Hypot(float64(int(c)%t.Width-hs.Col)*t.Dx, float64(int(c)/t.Width-hs.Row)*t.Dy) <= hs.RadiusM {
				hot = append(hot, c)
			}
		}
		if len(hot) == 0 {
			return nil, fmt.Errorf("%w within %g m of the hot spot (%d,%d): the bots' area lies farther", ErrNoRoom, hs.RadiusM, hs.Col, hs.Row)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xb075))
	p := &Paths{Bots: o.Bots, Ticks: o.Ticks, Standable: len(comp),
		Cells: make([][2]int32, o.Bots*o.Ticks), Pos: make([][2]float32, o.Bots*o.Ticks),
		Vel: make([][2]float32, o.Bots*o.Ticks), Respawned: make([]bool, o.Bots*o.Ticks)}
	respawn := 1 - math.Exp(-o.RespawnPerMin*o.TickSeconds/60) // per tick
	step := o.SpeedMS * o.TickSeconds                          // metres per tick
	for b := range o.Bots {
		// One bot at a time, with its own stream, so that a bot's path does
		// not depend on how many bots there are.
		br := rand.New(rand.NewPCG(rng.Uint64(), uint64(b)))
		cur := int(comp[br.IntN(len(comp))])
		x, y := float64(cur%t.Width), float64(cur/t.Width)
		var route []int32 // cells still to visit, next last
		for tk := range o.Ticks {
			k := tk*o.Bots + b
			px, py := x, y
			if tk > 0 && respawn > 0 && br.Float64() < respawn {
				cur = int(comp[br.IntN(len(comp))])
				x, y, route = float64(cur%t.Width), float64(cur/t.Width), route[:0]
				p.Respawned[k] = true
				px, py = x, y
			} else {
				left := step
				if tk == 0 {
					// A random start along the first route: bots that all
					// left cell centres at tick 0 at one speed would cross
					// cell edges in lockstep, every bot in the same ticks.
					left = br.Float64() * max(t.Dx, t.Dy)
				}
				for left > 0 {
					if len(route) == 0 {
						to := comp
						if hot != nil && br.Float64() < o.HotSpot.Share {
							to = hot
						}
						route = w.route(route[:0], int32(int(math.Round(y))*t.Width+int(math.Round(x))), to[br.IntN(len(to))])
						if len(route) == 0 {
							break // the waypoint is where the bot stands
						}
					}
					n := route[len(route)-1]
					nx, ny := float64(int(n)%t.Width), float64(int(n)/t.Width)
					d := math.Hypot((nx-x)*t.Dx, (ny-y)*t.Dy)
					if d <= left {
						x, y, left = nx, ny, left-d
						route = route[:len(route)-1]
						continue
					}
					f := left / d
					x, y, left = x+f*(nx-x), y+f*(ny-y), 0
				}
			}
			p.Pos[k] = [2]float32{float32(x), float32(y)}
			p.Vel[k] = [2]float32{float32(x - px), float32(y - py)}
			if tk == 0 || p.Respawned[k] {
				p.Vel[k] = [2]float32{}
			}
			p.Cells[k] = [2]int32{int32(math.Round(x)), int32(math.Round(y))}
		}
	}
	return p, nil
}

// walker holds the walkable graph.
type walker struct {
	t        Terrain
	maxSlope float64
	comp     []int32 // component label per cell, -1 for none
	dist     []float64
	prev     []int32
	seen     []uint32
	gen      uint32
	pq       queue
}

func newWalker(t Terrain, maxSlope float64) *walker {
	n := t.Width * t.Height
	return &walker{t: t, maxSlope: maxSlope, comp: make([]int32, n), dist: make([]float64, n),
		prev: make([]int32, n), seen: make([]uint32, n)}
}

var dirs = [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

// step returns the metric length of the step from cell c by d, or false
// when it leaves the grid, lands on nodata or is too steep.
func (w *walker) step(c int, d [2]int) (int, float64, bool) {
	t := w.t
	col, row := c%t.Width+d[0], c/t.Width+d[1]
	if col < 0 || row < 0 || col >= t.Width || row >= t.Height {
		return 0, 0, false
	}
	n := row*t.Width + col
	if t.Nodata != nil && t.Nodata[n] {
		return 0, 0, false
	}
	run := math.Hypot(float64(d[0])*t.Dx, float64(d[1])*t.Dy)
	if math.Abs(float64(t.Elev[n]-t.Elev[c])) > w.maxSlope*run {
		return 0, 0, false
	}
	return n, run, true
}

// largest labels the walkable components and returns the cells of the
// largest, in row-major order.
func (w *walker) largest() []int32 {
	t := w.t
	for i := range w.comp {
		w.comp[i] = -1
	}
	best, bestN := int32(-1), 0
	var stack []int32
	label := int32(0)
	for c := range w.comp {
		if w.comp[c] >= 0 || (t.Nodata != nil && t.Nodata[c]) {
			continue
		}
		n := 0
		w.comp[c] = label
		stack = append(stack[:0], int32(c))
		for len(stack) > 0 {
			x := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			n++
			for _, d := range dirs {
				if y, _, ok := w.step(x, d); ok && w.comp[y] < 0 {
					w.comp[y] = label
					stack = append(stack, int32(y))
				}
			}
		}
		if n > bestN {
			best, bestN = label, n
		}
		label++
	}
	out := make([]int32, 0, bestN)
	for c, l := range w.comp {
		if l == best && best >= 0 {
			out = append(out, int32(c))
		}
	}
	return out
}

// route appends the cells of a shortest walkable path from src to dst
// (A*, metric lengths), dst first and src's successor last; nothing when
// src == dst or dst is unreachable.
func (w *walker) route(dst []int32, src, to int32) []int32 {
	if src == to {
		return dst
	}
	t := w.t
	w.gen++
	if w.gen == 0 {
		clear(w.seen)
		w.gen = 1
	}
	diag := math.Hypot(t.Dx, t.Dy)
	h := func(c int) float64 { // the path's length without obstacles: admissible
		nc := abs(c%t.Width - int(to)%t.Width)
		nr := abs(c/t.Width - int(to)/t.Width)
		d := min(nc, nr)
		return float64(d)*diag + float64(nc-d)*t.Dx + float64(nr-d)*t.Dy
	}
	w.pq = w.pq[:0]
	w.seen[src], w.dist[src], w.prev[src] = w.gen, 0, -1
	w.pq.push(item{src, h(int(src))})
	for len(w.pq) > 0 {
		it := w.pq.pop()
		c := int(it.c)
		if it.f > w.dist[c]+h(c)+1e-9 {
			continue // stale
		}
		if c == int(to) {
			for x := to; x != src; x = w.prev[x] {
				dst = append(dst, x)
			}
			return dst
		}
		for _, d := range dirs {
			n, run, ok := w.step(c, d)
			if !ok {
				continue
			}
			nd := w.dist[c] + run
			if w.seen[n] != w.gen || nd < w.dist[n] {
				w.seen[n], w.dist[n], w.prev[n] = w.gen, nd, int32(c)
				w.pq.push(item{int32(n), nd + h(n)})
			}
		}
	}
	return dst
}

type item struct {
	c int32
	f float64
}

// queue is a binary min-heap of items by f. Its sifts are
// container/heap's, step for step (ties go the same way, so routes are the
// ones that package gives), without boxing every item pushed and popped
// in an interface: a route across a 4097² map pushes millions.
type queue []item

// push adds it.
func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	j := len(h) - 1
	for {
		i := (j - 1) / 2 // parent
		if i == j || !(h[j].f < h[i].f) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

// pop removes and returns the item of least f.
func (q *queue) pop() item {
	h := *q
	n := len(h) - 1
	h[0], h[n] = h[n], h[0]
	i := 0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && h[j2].f < h[j1].f {
			j = j2
		}
		if !(h[j].f < h[i].f) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	it := h[n]
	*q = h[:n]
	return it
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
