package horizon

import (
	"errors"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

var (
	fullFidelity = flag.Bool("fidelity", false, "measure fidelity for S = 256, 1024, 4096 on larger windows (slow)")
	fidelitySize = flag.Int("fidelity.size", 160, "window side in cells with -fidelity")
)

func plane(w, h int, dx float64) Terrain {
	return Terrain{Width: w, Height: h, Elev: make([]float32, w*h), Dx: dx, Dy: dx}
}

func viewshed(t *testing.T, ter Terrain, p Params, col, row int) Bitmap {
	t.Helper()
	m, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.NewWorker().Viewshed(col, row, Bitmap{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFlatPlaneAllVisible(t *testing.T) {
	for _, tc := range []struct{ w, h, c, r int }{{50, 50, 25, 25}, {37, 61, 0, 0}, {64, 20, 63, 19}, {1, 1, 0, 0}, {1, 9, 0, 4}} {
		b := viewshed(t, plane(tc.w, tc.h, 5), ThesisParams(), tc.c, tc.r)
		if n := b.CountVisible(); n != tc.w*tc.h {
			t.Errorf("%d×%d from (%d,%d): %d of %d visible", tc.w, tc.h, tc.c, tc.r, n, tc.w*tc.h)
		}
	}
}

// TestWall: a 3 m wall across the grid hides the cells behind it from a 1.8 m
// eye unless the targets are tall enough to clear it.
func TestWall(t *testing.T) {
	ter := plane(60, 41, 2)
	for r := range 41 {
		ter.Elev[r*60+20] = 3
	}
	p := ThesisParams()
	b := viewshed(t, ter, p, 5, 20)
	for c := 21; c < 60; c++ {
		if b.Visible(c, 20) {
			t.Errorf("cell (%d,20) behind the wall is visible", c)
		}
	}
	for c := 0; c <= 20; c++ {
		if !b.Visible(c, 20) {
			t.Errorf("cell (%d,20) in front of the wall is hidden", c)
		}
	}
	p.TargetHeight = 30 // the top clears the wall: 1.8 + 28.2·15/20 > 3 at the wall
	b = viewshed(t, ter, p, 5, 20)
	for c := 25; c < 60; c++ {
		if !b.Visible(c, 20) {
			t.Errorf("30 m target at (%d,20) behind a 3 m wall is hidden", c)
		}
	}
}

// TestPits: a pit shallower than τ stays visible, a deeper one is hidden.
func TestPits(t *testing.T) {
	for _, tc := range []struct {
		depth  float32
		hidden bool
	}{{1, false}, {5, true}} {
		ter := plane(60, 60, 1)
		for r := 25; r < 35; r++ {
			for c := 20; c < 30; c++ {
				ter.Elev[r*60+c] = -tc.depth
			}
		}
		b := viewshed(t, ter, ThesisParams(), 0, 30)
		for c := 21; c < 30; c++ {
			if b.Visible(c, 30) == tc.hidden {
				t.Errorf("pit %g m deep: cell (%d,30) visible = %v", tc.depth, c, !tc.hidden)
			}
		}
	}
}

func TestParamsAndErrors(t *testing.T) {
	ter := plane(10, 10, 1)
	for _, p := range []Params{
		{Sectors: 4, ObserverHeight: 1, TargetHeight: 1},
		{Sectors: 64, ObserverHeight: -1, TargetHeight: 1},
		{Sectors: 64, ObserverHeight: 1, TargetHeight: 1, MaxDistance: -5},
		{Sectors: 64, EarthCurvature: true, Refraction: 1},
	} {
		if _, err := New(ter, p); !errors.Is(err, ErrParams) {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := ter
	bad.Dx = 0
	if _, err := New(bad, ThesisParams()); !errors.Is(err, ErrTerrain) {
		t.Errorf("zero spacing: %v", err)
	}
	m, _ := New(ter, ThesisParams())
	if _, err := m.NewWorker().Viewshed(10, 0, Bitmap{}); !errors.Is(err, ErrOutside) {
		t.Errorf("outside observer: %v", err)
	}
}

func TestMaxDistance(t *testing.T) {
	p := ThesisParams()
	p.MaxDistance = 20
	b := viewshed(t, plane(50, 50, 2), p, 10, 10)
	for r := range 50 {
		for c := range 50 {
			d2 := float64((c-10)*(c-10)+(r-10)*(r-10)) * 4
			if b.Visible(c, r) != (d2 <= 400) {
				t.Fatalf("cell (%d,%d) at %.1f m visible = %v", c, r, d2, b.Visible(c, r))
			}
		}
	}
}

// TestEarthCurvature: on a 20 km flat sea, curvature hides 1.8 m targets
// beyond the mutual horizon 2·√(2R·1.8) ≈ 9.6 km.
func TestEarthCurvature(t *testing.T) {
	p := ThesisParams()
	p.EarthCurvature = true
	b := viewshed(t, plane(201, 3, 100), p, 0, 1)
	if !b.Visible(90, 1) || b.Visible(100, 1) || b.Visible(200, 1) {
		t.Errorf("curvature: 9 km %v, 10 km %v, 20 km %v", b.Visible(90, 1), b.Visible(100, 1), b.Visible(200, 1))
	}
	if b := viewshed(t, plane(201, 3, 100), ThesisParams(), 0, 1); b.CountVisible() != 603 {
		t.Errorf("flat without curvature: %d visible", b.CountVisible())
	}
}

func TestHorizonExport(t *testing.T) {
	ter := plane(41, 41, 1)
	for r := range 41 { // a 10 m wall 10 cells east of the observer
		ter.Elev[r*41+30] = 10
	}
	m, _ := New(ter, ThesisParams())
	w := m.NewWorker()
	if _, err := w.Viewshed(20, 20, Bitmap{}); err != nil {
		t.Fatal(err)
	}
	hz := w.Horizon(nil)
	if len(hz) != 1024 {
		t.Fatalf("%d sectors", len(hz))
	}
	east := hz[256] // azimuth ≈ π/2
	if east.Distance < 9.9 || east.Distance > 10.2 || east.Elevation < 0.6 || east.Elevation > 0.7 {
		t.Errorf("east horizon %+v, want ≈ atan(8.2/10) = 0.687 rad at 10 m", east)
	}
}

// loadWindow loads a window of a real DEM as a Terrain: from its committed
// crop when the crop holds it, else from the shared data folder.
func loadWindow(t testing.TB, name string, w heightmap.Window) Terrain {
	t.Helper()
	g := testdem.Any(t, name, w)
	return Terrain{Width: g.Width, Height: g.Height, Elev: g.Elev, Dx: g.Dx, Dy: g.Dy}
}

// TestProperties on real windows: the observer's cell is visible, a taller
// target never hides more, and doubling S changes few cells.
func TestProperties(t *testing.T) {
	for _, tc := range []struct {
		name string
		win  heightmap.Window
	}{
		{"N44W072.hgt", heightmap.Window{Col: 800, Row: 840, Width: 64, Height: 64}},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 64, Height: 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ter := loadWindow(t, tc.name, tc.win)
			p := ThesisParams()
			tall := p
			tall.TargetHeight = 5
			fine := p
			fine.Sectors = 2048
			m, _ := New(ter, p)
			mt, _ := New(ter, tall)
			mf, _ := New(ter, fine)
			w, wt, wf := m.NewWorker(), mt.NewWorker(), mf.NewWorker()
			rng := rand.New(rand.NewPCG(1, 2))
			changed, total := 0, 0
			for range 20 {
				c, r := rng.IntN(ter.Width), rng.IntN(ter.Height)
				b, _ := w.Viewshed(c, r, Bitmap{})
				bt, _ := wt.Viewshed(c, r, Bitmap{})
				bf, _ := wf.Viewshed(c, r, Bitmap{})
				if !b.Visible(c, r) {
					t.Errorf("observer (%d,%d) does not see its own cell", c, r)
				}
				for i, word := range b.Words {
					if word&^bt.Words[i] != 0 {
						t.Fatalf("observer (%d,%d): a 5 m target hides cells a 1.8 m one shows", c, r)
					}
					changed += popcount(word ^ bf.Words[i])
				}
				total += ter.Width * ter.Height
			}
			if rate := float64(changed) / float64(total); rate > 0.02 {
				t.Errorf("S 1024 → 2048 changes %.2f%% of cells", 100*rate)
			}
		})
	}
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestFidelity compares the sector method with the exact line-of-sight
// reference on small windows of both real terrains: misses (truly visible
// cells classified hidden) must stay ≤ 2% of the truly visible cells at
// S = 1024. With -fidelity it measures S = 256, 1024, 4096 on larger
// windows and logs the figures (and asymmetry of the reference-free method).
func TestFidelity(t *testing.T) {
	size, observers := 64, 12
	sectors := []int{1024}
	if *fullFidelity {
		size, observers = *fidelitySize, 40
		sectors = []int{256, 1024, 4096}
	}
	for _, tc := range []struct {
		name     string
		col, row int
	}{
		{"N44W072.hgt", 780, 820},
		{"annarbor-dsm-2ft.tif", 250, 300},
	} {
		ter := loadWindow(t, tc.name, heightmap.Window{Col: tc.col, Row: tc.row, Width: size, Height: size})
		rng := rand.New(rand.NewPCG(7, 7))
		type obs struct{ c, r int }
		var pts []obs
		var ref [][]bool
		lg := losref.Grid{Width: ter.Width, Height: ter.Height, Elev: ter.Elev}
		for range observers {
			o := obs{rng.IntN(size), rng.IntN(size)}
			pts = append(pts, o)
			ref = append(ref, losref.Viewshed(lg, o.c, o.r, 1.8, 1.8))
		}
		for _, s := range sectors {
			p := ThesisParams()
			p.Sectors = s
			m, err := New(ter, p)
			if err != nil {
				t.Fatal(err)
			}
			w := m.NewWorker()
			var f losref.Fidelity
			bms := make([]Bitmap, len(pts))
			for i, o := range pts {
				bms[i], _ = w.Viewshed(o.c, o.r, Bitmap{})
				f.Add(bitmapVisible(bms[i]), ref[i])
			}
			asym, pairs := 0, 0
			for i := range pts {
				for j := range pts {
					if i < j {
						a := bms[i].Visible(pts[j].c, pts[j].r)
						b := bms[j].Visible(pts[i].c, pts[i].r)
						if a != b {
							asym++
						}
						pairs++
					}
				}
			}
			t.Logf("%s %d² S=%d: truly visible %.1f%%, misses %.2f%% of visible, false visible %.2f%% of hidden, asymmetric pairs %d/%d",
				tc.name, size, s, 100*float64(f.Visible)/float64(f.Visible+f.Hidden), 100*f.MissRate(), 100*f.ExtraRate(), asym, pairs)
			if s == 1024 && f.MissRate() > 0.02 {
				t.Errorf("%s S=1024: misses %.2f%% of truly visible cells, target ≤ 2%%", tc.name, 100*f.MissRate())
			}
		}
	}
}

// bitmapVisible adapts a Bitmap to losref.Fidelity.Add.
func bitmapVisible(b Bitmap) func(int) bool {
	return func(i int) bool { return b.Words[i>>6]>>(uint(i)&63)&1 != 0 }
}

// TestMargin: a margin of m metres judges every target m metres taller: a
// 3 m wall hides the cells just behind it from a 1.8 m eye, but not with a
// margin that lifts the targets above the sight line; a negative margin is
// refused.
func TestMargin(t *testing.T) {
	ter := plane(60, 41, 2)
	for r := range 41 {
		ter.Elev[r*60+20] = 3
	}
	p := ThesisParams()
	if b := viewshed(t, ter, p, 5, 20); b.Visible(30, 20) {
		t.Fatal("cell (30,20) behind the wall is visible without a margin")
	}
	p.Margin = 3 // target top at 4.8 m: above the sight line from the 1.8 m eye over the 3 m wall, 3.8 m at (30,20)
	if b := viewshed(t, ter, p, 5, 20); !b.Visible(30, 20) {
		t.Error("cell (30,20) is hidden with a 3 m margin")
	}
	p.Margin = -1
	if _, err := New(ter, p); !errors.Is(err, ErrParams) {
		t.Errorf("margin -1 m: %v", err)
	}
}
