package grow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// fixture is a small real window with its exact per-point viewsheds and a
// hierarchy built from them (capped at nodeCap nodes when > 0).
type fixture struct {
	dem   *heightmap.Grid
	cells []horizon.Bitmap
	gr    *Grower
}

func newFixture(t testing.TB, name string, win heightmap.Window, nodeCap int) *fixture {
	t.Helper()
	dem := testdem.Load(t, name, win, heightmap.Options{})
	par := horizon.ThesisParams()
	par.Sectors = 512
	m, _ := horizon.New(horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, par)
	wk := m.NewWorker()
	g, _ := quadpvs.NewGeometry(dem.Width, dem.Height)
	h := quadpvs.NewHierarchy(g)
	var capper quadpvs.Capper
	var capped quadpvs.Tree
	b := quadpvs.NewHierarchyBuilder(g, func(l, x, y int, t *quadpvs.Tree) error {
		if nodeCap > 0 && t.Nodes() > nodeCap {
			capper.Cap(&capped, t, nodeCap)
			t = &capped
		}
		h.Set(l, x, y, t)
		return nil
	})
	f := &fixture{dem: dem, cells: make([]horizon.Bitmap, dem.Width*dem.Height)}
	enc := quadpvs.NewEncoder(g)
	var tr quadpvs.Tree
	for _, c32 := range b.Order() {
		c := [2]int{int(c32[0]), int(c32[1])}
		bm, _ := wk.Viewshed(c[0], c[1], horizon.Bitmap{})
		f.cells[c[1]*dem.Width+c[0]] = bm
		enc.Encode(bm, &tr)
		if err := b.Add(c[0], c[1], &tr); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if f.gr, err = New(h, dem.Elev, dem.Nodata); err != nil {
		t.Fatal(err)
	}
	return f
}

// check asserts the frontier set's promise against the exact per-point
// viewsheds, both directions, and the result's bookkeeping.
func (f *fixture) check(t *testing.T, res *Result, a, b [2]int) (violations int) {
	t.Helper()
	w, h := f.dem.Width, f.dem.Height
	ca, cb := res.A.AppendCells(nil), res.B.AppendCells(nil)
	if len(ca) != res.A.Points || len(cb) != res.B.Points {
		t.Fatalf("points %d/%d, quads hold %d/%d cells", res.A.Points, res.B.Points, len(ca), len(cb))
	}
	if !res.A.Contains(a[0], a[1]) || !res.B.Contains(b[0], b[1]) {
		t.Fatalf("a frontier does not contain its player")
	}
	inA := map[[2]int]bool{}
	for _, c := range ca {
		if inA[c] {
			t.Fatalf("cell %v twice in A's frontier", c)
		}
		inA[c] = true
	}
	for _, c := range cb {
		if inA[c] {
			t.Fatalf("cell %v in both frontiers", c)
		}
	}
	for r := range h { // Contains agrees with the quads
		for c := range w {
			if res.A.Contains(c, r) != inA[[2]int{c, r}] {
				t.Fatalf("Contains(%d,%d) = %v", c, r, res.A.Contains(c, r))
			}
		}
	}
	for _, p := range ca {
		va := f.cells[p[1]*w+p[0]]
		for _, q := range cb {
			if va.Visible(q[0], q[1]) || f.cells[q[1]*w+q[0]].Visible(p[0], p[1]) {
				violations++
			}
		}
	}
	return violations
}

func TestFrontierGuarantee(t *testing.T) {
	for _, tc := range []struct {
		name    string
		win     heightmap.Window
		nodeCap int
	}{
		{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 0},
		{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 12},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 37, Height: 40}, 0},
	} {
		t.Run(fmt.Sprintf("%s/cap%d", tc.name, tc.nodeCap), func(t *testing.T) {
			f := newFixture(t, tc.name, tc.win, tc.nodeCap)
			rng := rand.New(rand.NewPCG(5, 5))
			var s Scratch
			var res Result
			w, h := f.dem.Width, f.dem.Height
			grown := 0
			for _, opt := range []Options{
				{}, {Merge: quadpvs.Lossy}, {Method: Simple}, {Method: Simple, Merge: quadpvs.Lossy},
				{Neighbours: 8, GrowLarger: true}, {Order: Ground, Merge: quadpvs.Lossy},
				{MaxSteps: 3}, {MaxSteps: 5, Merge: quadpvs.Lossy, GrowLarger: true},
			} {
				pairs := 0
				for tries := 0; pairs < 12 && tries < 400; tries++ {
					a := [2]int{rng.IntN(w), rng.IntN(h)}
					b := [2]int{rng.IntN(w), rng.IntN(h)}
					if a == b {
						continue
					}
					if err := f.gr.Grow(a, b, opt, &s, &res); err != nil {
						t.Fatal(err)
					}
					mutual := f.cells[a[1]*w+a[0]].Visible(b[0], b[1]) || f.cells[b[1]*w+b[0]].Visible(a[0], a[1])
					if vis, err := f.gr.MutuallyVisible(a, b); err != nil || vis != res.MutuallyVisible {
						t.Fatalf("%v→%v: MutuallyVisible %v (%v), Grow says %v", a, b, vis, err, res.MutuallyVisible)
					}
					for _, d := range [][2][2]int{{a, b}, {b, a}} {
						sees := f.cells[d[0][1]*w+d[0][0]].Visible(d[1][0], d[1][1])
						may, err := f.gr.MaySee(d[0], d[1])
						if err != nil || (sees && !may) || (tc.nodeCap == 0 && may != sees) {
							t.Fatalf("MaySee(%v, %v) = %v (%v), viewshed says %v", d[0], d[1], may, err, sees)
						}
					}
					// Capped PVSs may call hidden pairs visible (conservative),
					// never the reverse; uncapped ones must agree exactly.
					if (mutual && !res.MutuallyVisible) || (tc.nodeCap == 0 && res.MutuallyVisible != mutual) {
						t.Fatalf("%v→%v: mutually visible %v, viewsheds say %v", a, b, res.MutuallyVisible, mutual)
					}
					if res.MutuallyVisible {
						if len(res.A.Quads)+len(res.B.Quads) != 0 {
							t.Fatal("mutually visible points with frontiers")
						}
						continue
					}
					pairs++
					if v := f.check(t, &res, a, b); v != 0 {
						t.Fatalf("%+v %v→%v: %d mutually visible pairs in the frontier set", opt, a, b, v)
					}
					if res.A.Points+res.B.Points > 2 {
						grown++
					}
				}
			}
			if grown == 0 {
				t.Error("no frontier grew beyond its player")
			}
		})
	}
}

// TestMaxSteps: a query bounded to k steps stops after k and returns a
// prefix of the unbounded growth: its frontiers lie inside the unbounded
// ones (and TestFrontierGuarantee checks that they are frontiers). The
// zero value bounds at DefaultMaxSteps; Unbounded does not bound.
func TestMaxSteps(t *testing.T) {
	f := newFixture(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 37, Height: 40}, 0)
	rng := rand.New(rand.NewPCG(9, 9))
	var s Scratch
	var full, capped Result
	truncated, pairs, defaulted := 0, 0, 0
	for tries := 0; tries < 2000 && pairs < 15; tries++ {
		a := [2]int{rng.IntN(37), rng.IntN(40)}
		b := [2]int{rng.IntN(37), rng.IntN(40)}
		if f.gr.Grow(a, b, Options{MaxSteps: Unbounded}, &s, &full) != nil || full.MutuallyVisible {
			continue
		}
		if full.Truncated {
			t.Fatalf("%v→%v: an unbounded query was truncated after %d steps", a, b, full.Steps)
		}
		full = full.Clone()
		pairs++
		for _, k := range []int{1, 4, 16, 0} {
			if err := f.gr.Grow(a, b, Options{MaxSteps: k}, &s, &capped); err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				k = DefaultMaxSteps
				if full.Steps > k {
					defaulted++
				}
			}
			if capped.Steps > k || capped.Truncated != (full.Steps > k) || (!capped.Truncated && capped.Steps != full.Steps) {
				t.Fatalf("%v→%v, %d steps: took %d (truncated %v); unbounded %d", a, b, k, capped.Steps, capped.Truncated, full.Steps)
			}
			if capped.Truncated {
				truncated++
			}
			for _, side := range [][2]*Frontier{{&capped.A, &full.A}, {&capped.B, &full.B}} {
				for _, q := range side[0].Quads {
					for y := q.Row(); y < min(q.Row()+q.Size(), 40); y++ {
						for x := q.Col(); x < min(q.Col()+q.Size(), 37); x++ {
							if !side[1].Contains(x, y) {
								t.Fatalf("%v→%v, %d steps: cell (%d,%d) is not in the unbounded frontier", a, b, k, x, y)
							}
						}
					}
				}
			}
		}
	}
	if truncated == 0 {
		t.Error("no query reached its bound")
	}
	// The default bound, where growth goes on longer: a capped store of a
	// larger window.
	f = newFixture(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 64, Height: 64}, 24)
	for tries := 0; tries < 400 && defaulted == 0; tries++ {
		a := [2]int{rng.IntN(64), rng.IntN(64)}
		b := [2]int{rng.IntN(64), rng.IntN(64)}
		if f.gr.Grow(a, b, Options{MaxSteps: Unbounded}, &s, &full) != nil || full.MutuallyVisible || full.Steps <= DefaultMaxSteps {
			continue
		}
		defaulted++
		if err := f.gr.Grow(a, b, Options{}, &s, &capped); err != nil || !capped.Truncated || capped.Steps != DefaultMaxSteps {
			t.Errorf("%v→%v by default: %d steps (truncated %v, %v); unbounded %d", a, b, capped.Steps, capped.Truncated, err, full.Steps)
		}
	}
	if defaulted == 0 {
		t.Error("no query went past the default bound")
	}
}

func TestGrowErrors(t *testing.T) {
	f := newFixture(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 8, Height: 8}, 0)
	var s Scratch
	var res Result
	for _, tc := range []struct {
		a, b [2]int
		opt  Options
		want error
	}{
		{[2]int{8, 0}, [2]int{1, 1}, Options{}, ErrOutside},
		{[2]int{1, 2}, [2]int{2, 2}, Options{Neighbours: 6}, ErrOptions},
	} {
		if err := f.gr.Grow(tc.a, tc.b, tc.opt, &s, &res); !errors.Is(err, tc.want) {
			t.Errorf("%v %v: %v, want %v", tc.a, tc.b, err, tc.want)
		}
	}
	// Two players in one cell (a few metres apart in an 8 m PVS cell) see
	// each other: an answer, not an error (it was ErrIdentical).
	for _, m := range []Method{Hierarchical, Simple} {
		if err := f.gr.Grow([2]int{2, 2}, [2]int{2, 2}, Options{Method: m}, &s, &res); err != nil || !res.MutuallyVisible || res.A.Points != 0 || res.B.Points != 0 {
			t.Errorf("one cell for both, %v: %v, mutually visible %v, %d and %d points", m, err, res.MutuallyVisible, res.A.Points, res.B.Points)
		}
	}
	if v, err := f.gr.MutuallyVisible([2]int{2, 2}, [2]int{2, 2}); err != nil || !v {
		t.Errorf("MutuallyVisible of one cell: %v, %v", v, err)
	}
	if v, err := f.gr.MaySee([2]int{2, 2}, [2]int{2, 2}); err != nil || !v {
		t.Errorf("MaySee of one cell: %v, %v", v, err)
	}
	nd := make([]bool, 64)
	nd[9] = true
	gr, _ := New(f.gr.h, f.dem.Elev, nd)
	if err := gr.Grow([2]int{1, 1}, [2]int{5, 5}, Options{}, &s, &res); !errors.Is(err, ErrNodata) {
		t.Errorf("nodata point: %v", err)
	}
}

// TestConcurrentQueries shares one Grower between goroutines, each with its
// own Scratch (run with -race), and checks they agree with a serial run.
func TestConcurrentQueries(t *testing.T) {
	f := newFixture(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 32, Height: 32}, 0)
	type q struct{ a, b [2]int }
	rng := rand.New(rand.NewPCG(9, 9))
	var qs []q
	for range 24 {
		qs = append(qs, q{[2]int{rng.IntN(32), rng.IntN(32)}, [2]int{rng.IntN(32), rng.IntN(32)}})
	}
	want := make([]int, len(qs))
	var s Scratch
	var res Result
	for i, x := range qs {
		if err := f.gr.Grow(x.a, x.b, Options{}, &s, &res); err == nil {
			want[i] = res.A.Points*100000 + res.B.Points
		}
	}
	got := make([]int, len(qs))
	done := make(chan bool)
	for w := range 4 {
		go func() {
			var s Scratch
			var res Result
			for i := w; i < len(qs); i += 4 {
				if err := f.gr.Grow(qs[i].a, qs[i].b, Options{}, &s, &res); err == nil {
					got[i] = res.A.Points*100000 + res.B.Points
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	for i := range qs {
		if got[i] != want[i] {
			t.Errorf("query %d: concurrent %d, serial %d", i, got[i], want[i])
		}
	}
}

// TestExtend grows frontier sets on real windows, extends their sides by
// random cells and checks the guarantee against the exact viewsheds after
// every extension, capped PVSs included.
func TestExtend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		win     heightmap.Window
		nodeCap int
	}{
		{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 0},
		{"N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 12},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 200, Width: 37, Height: 40}, 0},
	} {
		t.Run(fmt.Sprintf("%s/cap%d", tc.name, tc.nodeCap), func(t *testing.T) {
			f := newFixture(t, tc.name, tc.win, tc.nodeCap)
			rng := rand.New(rand.NewPCG(8, 8))
			var s Scratch
			var res Result
			w, h := f.dem.Width, f.dem.Height
			added, refused := 0, 0
			for pairs := 0; pairs < 20; {
				a, b := [2]int{rng.IntN(w), rng.IntN(h)}, [2]int{rng.IntN(w), rng.IntN(h)}
				if a == b {
					continue
				}
				if err := f.gr.Grow(a, b, Options{Merge: quadpvs.Lossy}, &s, &res); err != nil {
					t.Fatal(err)
				}
				if res.MutuallyVisible {
					if _, err := f.gr.Extend(&res, 0, a); !errors.Is(err, ErrOptions) {
						t.Fatalf("extending a visible pair: %v", err)
					}
					continue
				}
				pairs++
				for range 30 {
					side := rng.IntN(2)
					// A cell next to the side's player, as a player steps out.
					p := [2]*Frontier{&res.A, &res.B}[side]
					c := [2]int{min(max(p.Col+rng.IntN(9)-4, 0), w-1), min(max(p.Row+rng.IntN(9)-4, 0), h-1)}
					inside, inOther := p.Contains(c[0], c[1]), [2]*Frontier{&res.A, &res.B}[1-side].Contains(c[0], c[1])
					before := p.Points
					ok, err := f.gr.Extend(&res, side, c)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case inside && (!ok || p.Points != before):
						t.Fatalf("a cell of the side: %v, points %d→%d", ok, before, p.Points)
					case inOther && ok:
						t.Fatal("extended into the other side")
					case ok && !inside:
						added++
						if !p.Contains(c[0], c[1]) || p.Points != before+1 {
							t.Fatalf("extended by %v: contains %v, points %d→%d", c, p.Contains(c[0], c[1]), before, p.Points)
						}
						if v := f.check(t, &res, a, b); v != 0 {
							t.Fatalf("extended by %v: %d mutually visible pairs", c, v)
						}
					case !ok:
						refused++
					}
				}
			}
			if added == 0 || refused == 0 {
				t.Errorf("%d extensions, %d refused: want some of each", added, refused)
			}
		})
	}
}

// TestGrowContext: growth stops once its context is done, within 32 quads,
// with an error wrapping the context's; a live context changes nothing.
func TestGrowContext(t *testing.T) {
	f := newFixture(t, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 40, Height: 40}, 0)
	var s Scratch
	var want, got Result
	// A pair whose growth considers many quads.
	var a, b [2]int
	for i := range 400 {
		a, b = [2]int{i % 40, (7 * i) % 40}, [2]int{39 - (3*i)%40, (11 * i) % 40}
		if err := f.gr.Grow(a, b, Options{}, &s, &want); err == nil && want.Steps > 64 {
			break
		}
	}
	if want.Steps <= 64 {
		t.Fatal("no pair grows past 64 quads")
	}
	if err := f.gr.GrowContext(t.Context(), a, b, Options{}, &s, &got); err != nil || got.Steps != want.Steps || got.A.Points != want.A.Points {
		t.Fatalf("with a live context: %v, %d steps (%d without)", err, got.Steps, want.Steps)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := f.gr.GrowContext(ctx, a, b, Options{}, &s, &got)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled growth: %v, want context.Canceled", err)
	}
}

// TestCodedSameFrontiers: the same trees read from a coded hierarchy
// (decoded when read, the upper levels kept) give the same frontier sets
// as read flat, for every growing option: step 1 asks the same ancestors
// of both (hidesVia).
func TestCodedSameFrontiers(t *testing.T) {
	f := newFixture(t, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 70, Height: 66}, 40)
	ch, err := f.gr.h.Code(quadpvs.MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := New(ch, f.dem.Elev, f.dem.Nodata)
	if err != nil {
		t.Fatal(err)
	}
	if cg.pinLevel > cg.g.K || cg.pinLevel < 1 {
		t.Fatalf("first decoded level %d of %d: the test needs levels below it", cg.pinLevel, cg.g.K)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var s Scratch
	var rf, rc Result
	w, h := f.dem.Width, f.dem.Height
	hidden := 0
	for _, opt := range []Options{{}, {Merge: quadpvs.Lossy}, {Neighbours: 8, GrowLarger: true}, {Order: Ground, Merge: quadpvs.Lossy, MaxSteps: 20}} {
		for range 40 {
			a, b := [2]int{rng.IntN(w), rng.IntN(h)}, [2]int{rng.IntN(w), rng.IntN(h)}
			if a == b {
				continue
			}
			if err := f.gr.Grow(a, b, opt, &s, &rf); err != nil {
				t.Fatal(err)
			}
			if err := cg.Grow(a, b, opt, &s, &rc); err != nil {
				t.Fatal(err)
			}
			if rf.MutuallyVisible != rc.MutuallyVisible || !slices.Equal(rf.A.Quads, rc.A.Quads) || !slices.Equal(rf.B.Quads, rc.B.Quads) {
				t.Fatalf("%+v %v→%v: flat %d+%d points, coded %d+%d", opt, a, b, rf.A.Points, rf.B.Points, rc.A.Points, rc.B.Points)
			}
			if !rf.MutuallyVisible {
				hidden++
			}
		}
	}
	if hidden == 0 {
		t.Error("no pair hidden")
	}
}

// TestLookupsAllocateNothing: the lookups a coordinator makes by the
// thousand per tick (QuadsHidden, Hides, HidesEach, MaySee, MutuallyVisible)
// arm the fault handler without allocating: its deferred call is no
// closure, and the error it may fill stays on the stack.
func TestLookupsAllocateNothing(t *testing.T) {
	f := newFixture(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 40, Height: 36}, 0)
	gr := f.gr
	p, q := Quad{Level: 2, X: 0, Y: 0}, Quad{Level: 1, X: 15, Y: 12}
	ps := []Quad{p, {Level: 0, X: 30, Y: 3}, {Level: 3, X: 4, Y: 0}}
	hidden := make([]bool, len(ps))
	allocs := testing.AllocsPerRun(100, func() {
		gr.QuadsHidden(p, q)
		gr.Hides(q, p)
		gr.HidesEach(ps, q, hidden)
		gr.MaySee([2]int{1, 2}, [2]int{33, 30})
		gr.MutuallyVisible([2]int{1, 2}, [2]int{33, 30})
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per round of lookups, want 0", allocs)
	}
}
