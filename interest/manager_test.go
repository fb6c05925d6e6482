package interest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/testdem"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// world is a small real window baked into a store, with the exact per-point
// viewsheds the store was built from.
type world struct {
	s     *compress.Store
	gr    *grow.Grower
	cells []horizon.Bitmap
}

func newWorld(t testing.TB, name string, win heightmap.Window, nodes int) *world {
	t.Helper()
	dem := testdem.Load(t, name, win, heightmap.Options{})
	par := horizon.ThesisParams()
	par.Sectors = 256
	out := filepath.Join(t.TempDir(), "w.pvs")
	cp := compress.Cap{Codes: 1 << 30}
	if nodes > 0 {
		cp = compress.Cap{Nodes: nodes}
	}
	if _, err := bake.Run(context.Background(), bake.Config{DEM: dem, Params: par, Workers: 2,
		Outputs: []bake.Output{{Path: out, Cap: cp, Budget: 1 << 30}}}); err != nil {
		t.Fatal(err)
	}
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := horizon.New(horizon.Terrain{Width: s.Width, Height: s.Height, Elev: s.Elev, Dx: s.DxM, Dy: s.DyM}, par)
	wk := m.NewWorker()
	w := &world{s: s, gr: gr, cells: make([]horizon.Bitmap, s.Width*s.Height)}
	for i := range w.cells {
		w.cells[i], _ = wk.Viewshed(i%s.Width, i/s.Width, horizon.Bitmap{})
	}
	return w
}

func (w *world) sees(obs, tgt Player) bool {
	return w.cells[obs.Row*w.s.Width+obs.Col].Visible(tgt.Col, tgt.Row)
}

// walk moves players one cell at a time in random directions, with a
// teleport now and then; velocities are the last step.
func walk(rng *rand.Rand, w, h int, ps []Player) {
	for k := range ps {
		p := &ps[k]
		switch x := rng.IntN(100); {
		case x < 2:
			*p = Player{Col: rng.IntN(w), Row: rng.IntN(h)}
		case x < 40:
			dc, dr := rng.IntN(3)-1, rng.IntN(3)-1
			c, r := min(max(p.Col+dc, 0), w-1), min(max(p.Row+dr, 0), h-1)
			*p = Player{Col: c, Row: r, VCol: float64(c - p.Col), VRow: float64(r - p.Row)}
		}
	}
}

// guaranteeWorlds are the real windows the guarantee tests walk on: both
// terrains uncapped, and the open one capped hard (14 nodes per PVS).
var guaranteeWorlds = []struct {
	name  string
	win   heightmap.Window
	nodes int
}{
	{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 0},
	{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 14},
	{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 37, Height: 40}, 0},
}

// TestManagerGuarantee walks players over real windows and checks every
// tick's decision: a silent pair holds a frontier that contains both players
// and the exact viewsheds say they do not see each other either way; a
// visible pair is not mutually hidden by the store; each replaced frontier
// reports one lifetime; more workers decide the same.
func TestManagerGuarantee(t *testing.T) {
	for _, wc := range guaranteeWorlds {
		w := newWorld(t, wc.name, wc.win, wc.nodes)
		for _, opt := range []Options{
			{},
			{Grow: grow.Options{Merge: quadpvs.Lossy}, Workers: 2},
			{Grow: grow.Options{Method: grow.Simple}},
			{Grow: grow.Options{Merge: quadpvs.Lossy}, Predict: 3},
			{Predict: 2, Workers: 3},
			{Grow: grow.Options{Merge: quadpvs.Lossy}, Extend: true},
			{Grow: grow.Options{Merge: quadpvs.Lossy}, Extend: true, Predict: 3, Workers: 2},
			{Grow: grow.Options{Merge: quadpvs.Lossy}, Budget: time.Nanosecond},
			{Extend: true, Predict: 2, Budget: 20 * time.Microsecond, Workers: 2},
		} {
			t.Run(fmt.Sprintf("%s/cap%d/%+v", wc.name, wc.nodes, opt), func(t *testing.T) {
				const n, ticks = 7, 250
				m, err := New(w.gr, n, opt)
				if err != nil {
					t.Fatal(err)
				}
				one := opt
				one.Workers = 1
				ref, _ := New(w.gr, n, one)
				rng := rand.New(rand.NewPCG(3, 4))
				ps := make([]Player, n)
				walk(rng, w.s.Width, w.s.Height, ps)
				silent, frontiers, lives, extended, pending, oneWay, stale := 0, 0, 0, 0, 0, 0, 0
				for tk := range ticks {
					walk(rng, w.s.Width, w.s.Height, ps)
					before := map[[2]int]bool{}
					for i := range n {
						for j := i + 1; j < n; j++ {
							if _, held := m.Frontier(i, j); held {
								before[[2]int{i, j}] = true
							}
						}
					}
					res, err := m.Tick(ps)
					if err != nil {
						t.Fatal(err)
					}
					got := slices.Clone(res.Exchanges)
					extended += res.Extensions
					replaced := len(res.Lifetimes)
					rr, err := ref.Tick(ps)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, rr.Exchanges) && opt.Budget == 0 { // a time budget depends on timing
						t.Fatalf("tick %d: %d workers decide %v, one worker %v", tk, opt.Workers, got, rr.Exchanges)
					}
					talk := map[[2]int]Reason{}
					for _, e := range got {
						talk[[2]int{int(e.I), int(e.J)}] = e.Reason
						a, b := ps[e.I], ps[e.J]
						// Whoever sees the other gets its updates; a position
						// exchange goes both ways.
						if (w.sees(b, a) && e.Dir&IToJ == 0) || (w.sees(a, b) && e.Dir&JToI == 0) ||
							(e.Reason != Visible && e.Dir != Both) || e.Dir == 0 || e.Packets() != int(e.Dir&1+e.Dir>>1+e.Stale&1+e.Stale>>1) ||
							e.Stale&e.Dir != 0 || (e.Stale != 0 && e.Reason != Visible) {
							t.Fatalf("tick %d: %+v between %v and %v (sees %v, seen %v)", tk, e, a, b, w.sees(a, b), w.sees(b, a))
						}
						if wc.nodes == 0 && e.Reason == Visible && a != b && (e.Dir&IToJ != 0) != w.sees(b, a) {
							t.Fatalf("tick %d: %+v on an uncapped store, j sees i: %v", tk, e, w.sees(b, a))
						}
						if e.Dir != Both && e.Reason == Visible {
							oneWay++
						}
						if e.Stale != 0 {
							stale++
						}
						if before[[2]int{int(e.I), int(e.J)}] {
							replaced-- // left, left early, or now visible
						}
					}
					if len(talk) != len(got) || !slices.IsSortedFunc(got, func(a, b Exchange) int { return int(a.I*n+a.J) - int(b.I*n+b.J) }) {
						t.Fatalf("tick %d: exchanges repeat a pair or are out of order: %v", tk, got)
					}
					if replaced != 0 {
						t.Fatalf("tick %d: %d lifetimes for the frontiers replaced", tk, len(res.Lifetimes))
					}
					lives += len(res.Lifetimes)
					for i := range n {
						for j := i + 1; j < n; j++ {
							a, b := ps[i], ps[j]
							f, held := m.Frontier(i, j)
							why, talks := talk[[2]int{i, j}]
							if why == Pending {
								vis, _ := w.gr.MutuallyVisible([2]int{a.Col, a.Row}, [2]int{b.Col, b.Row})
								if vis || held || opt.Budget == 0 {
									t.Fatalf("tick %d: pair %d,%d pending, store says visible %v, frontier held %v", tk, i, j, vis, held)
								}
								pending++
								continue
							}
							if why == Visible {
								vis := a.Col == b.Col && a.Row == b.Row
								if !vis {
									vis, _ = w.gr.MutuallyVisible([2]int{a.Col, a.Row}, [2]int{b.Col, b.Row})
								}
								if !vis || held {
									t.Fatalf("tick %d: pair %d,%d exchanges as visible, store says visible %v, frontier held %v", tk, i, j, vis, held)
								}
								continue
							}
							// Silent, or a frontier was just grown: either way the
							// pair now holds one with both players inside.
							if !held || !f.A.Contains(a.Col, a.Row) || !f.B.Contains(b.Col, b.Row) {
								t.Fatalf("tick %d: pair %d,%d (%v) holds no frontier around its players", tk, i, j, why)
							}
							frontiers++
							if !talks {
								silent++
								if w.sees(a, b) || w.sees(b, a) {
									t.Fatalf("tick %d: pair %d,%d silent but visible by the viewsheds", tk, i, j)
								}
							}
						}
					}
				}
				if (pending > 0) != (opt.Budget > 0) {
					t.Errorf("%d pending pair-ticks", pending)
				}
				if (extended > 0) != opt.Extend {
					t.Errorf("%d silent extensions", extended)
				}
				if silent == 0 || frontiers == silent || lives == 0 {
					t.Errorf("walk too tame: %d silent pair-ticks, %d with frontiers, %d frontiers replaced", silent, frontiers, lives)
				}
				if oneWay > 0 && stale == 0 {
					t.Errorf("%d one-way pair-ticks but no stale update", oneWay)
				}
				t.Logf("%d silent pair-ticks of %d, %d frontiers replaced, %d extended, %d one-way, %d with a stale update", silent, ticks*n*(n-1)/2, lives, extended, oneWay, stale)
			})
		}
	}
}

func TestManagerErrors(t *testing.T) {
	w := newWorld(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 20, Height: 18}, 0)
	if _, err := New(w.gr, 1, Options{}); err == nil {
		t.Error("one player accepted")
	}
	if _, err := New(w.gr, 3, Options{Predict: -1}); err == nil {
		t.Error("negative prediction accepted")
	}
	if _, err := New(w.gr, 3, Options{Grow: grow.Options{Neighbours: 6}}); !errors.Is(err, grow.ErrOptions) {
		t.Errorf("6 neighbours: %v", err)
	}
	m, _ := New(w.gr, 3, Options{})
	if _, err := m.Tick(make([]Player, 2)); !errors.Is(err, ErrPlayers) {
		t.Errorf("two players for three: %v", err)
	}
	if _, err := m.Tick([]Player{{}, {Col: 20}, {}}); !errors.Is(err, grow.ErrOutside) {
		t.Errorf("player outside: %v", err)
	}
	// Players sharing a cell see each other.
	m, _ = New(w.gr, 2, Options{})
	r, err := m.Tick([]Player{{Col: 3, Row: 4}, {Col: 3, Row: 4}})
	if err != nil || len(r.Exchanges) != 1 || r.Exchanges[0].Reason != Visible {
		t.Errorf("shared cell: %+v, %v", r, err)
	}
}
