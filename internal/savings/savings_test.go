package savings

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// TestWalk: a player walking at 1 m/s, 10 Hz, steps 0.1 m a tick; a side
// 5.05 m around its start holds it for 50 ticks, whatever the direction;
// the walk stops at the cap.
func TestWalk(t *testing.T) {
	m := &hmap{g: losref.Grid{Width: 101, Height: 101, Elev: make([]float32, 101*101)}, dx: 1, dy: 1}
	cfg := &Config{SpeedMS: 1, Hz: 10, Seed: 7}
	p := pair{50, 50, 30, 70}
	for i := range 20 {
		got := m.walk(p, i, cfg, 1000, func(ax, ay, bx, by float64) bool { return math.Hypot(ax-p.ax, ay-p.ay) < 5.05 })
		if got != 50 {
			t.Fatalf("pair %d: silent %d ticks, want 50", i, got)
		}
	}
	if got := m.walk(p, 0, cfg, 20, func(_, _, _, _ float64) bool { return true }); got != 20 {
		t.Errorf("capped walk: %d ticks, want 20", got)
	}
}

// TestWalkerReflects: a walker is reflected at the hull's edge and turned
// back, without moving, before nodata.
func TestWalkerReflects(t *testing.T) {
	m := &hmap{g: losref.Grid{Width: 10, Height: 10, Elev: make([]float32, 100)}, nodata: make([]bool, 100), dx: 1, dy: 1}
	w := walker{x: 0.05, y: 5, vx: -0.1}
	w.step(m, 9, 9)
	if math.Abs(w.x-0.15) > 1e-12 || w.vx != 0.1 {
		t.Errorf("at the edge: %+v, want x 0.15, vx 0.1", w)
	}
	m.nodata[5*10+3] = true
	w = walker{x: 2.45, y: 5, vx: 0.1}
	w.step(m, 9, 9)
	if w.x != 2.45 || w.vx != -0.1 {
		t.Errorf("before nodata: %+v, want x 2.45, vx −0.1", w)
	}
}

// bakeStores bakes a window of the demo hills into stores of the region
// model with the node caps given, and one of the sector (point) model,
// returning them opened.
func bakeStores(t *testing.T, win heightmap.Window, caps ...int) []Input {
	t.Helper()
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: win})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ins []Input
	for i, c := range append(caps, -1) {
		p := horizon.DefaultParams()
		p.Sectors, p.MaxDistance, p.LOS = 128, 1000, horizon.LOSRegion
		if c < 0 { // the point model
			p.LOS, c = horizon.LOSSector, caps[len(caps)-1]
		}
		path := filepath.Join(dir, strings.Repeat("s", i+1)+".pvs")
		if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: path, Cap: compress.Cap{Nodes: c}}}}); err != nil {
			t.Fatal(err)
		}
		s, gr, err := bake.OpenGrower(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ins = append(ins, Input{Path: path, FileBytes: int64(1000 * (i + 1)), Store: s, Grower: gr})
	}
	return ins
}

// TestMeasure measures stores of a 64² window of the demo hills: all-to-all
// sends n(n−1) packets a tick; a larger budget finds at least the hidden
// pairs a tiny one does; the joint frontier misses no visible pair;
// silences lie within the walk's cap; the point model's pairs are at
// sample points; and the same seed gives the same report.
func TestMeasure(t *testing.T) {
	ins := bakeStores(t, heightmap.Window{Col: 60, Row: 60, Width: 64, Height: 64}, 4, 400)
	cfg := DefaultConfig()
	cfg.Pairs, cfg.Players, cfg.Seconds, cfg.WalkSeconds = 150, 12, 10, 30
	rep, err := Measure(ins, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 || rep.Drawn < rep.Pairs || rep.ViewM != 1000 || rep.SpeedMS != 15 || !(rep.AOIRadiusM > 0) {
		t.Fatalf("report %+v", rep)
	}
	for _, x := range rep.Rows {
		if x.HiddenPairs != 150 || x.Found > x.HiddenPairs || x.FoundShare != float64(x.Found)/150 {
			t.Errorf("%s: %d of %d pairs found (share %g)", x.Store, x.Found, x.HiddenPairs, x.FoundShare)
		}
		if !(x.SilentP10S >= 0 && x.SilentP10S <= x.SilentMeanS*1.0000001+1e-9 && x.SilentMeanS <= 30) || x.Capped > x.Found ||
			math.Abs(x.SilentMeanM-15*x.SilentMeanS) > 1e-9 || math.Abs(x.SilentMeanTicks-20*x.SilentMeanS) > 1e-6 {
			t.Errorf("%s: silent mean %g s %g m %g t, p10 %g s, %d capped", x.Store, x.SilentMeanS, x.SilentMeanM, x.SilentMeanTicks, x.SilentP10S, x.Capped)
		}
		// The joint frontier's coordinator messages may cost more than
		// all-to-all where little is hidden: no bound on GQ here.
		if x.NPPPacketsPerS != 12*11*20 || math.Abs(x.SavedVsNPP-(1-x.GQPacketsPerS/x.NPPPacketsPerS)) > 1e-12 {
			t.Errorf("%s: GQ %g, NPP %g packets/s, saved %g", x.Store, x.GQPacketsPerS, x.NPPPacketsPerS, x.SavedVsNPP)
		}
		if x.GQMissed != 0 {
			t.Errorf("%s: GQ missed %d visible pair-ticks", x.Store, x.GQMissed)
		}
	}
	tiny, big, point := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	if !tiny.Positions || !big.Positions || point.Positions || point.Model != "sector" {
		t.Errorf("positions: %v %v %v (%s)", tiny.Positions, big.Positions, point.Positions, point.Model)
	}
	if big.Found < tiny.Found || big.Found == 0 || big.SavedVsNPP <= tiny.SavedVsNPP {
		t.Errorf("400 nodes found %d pairs, saved %.3f; 4 nodes %d, %.3f", big.Found, big.SavedVsNPP, tiny.Found, tiny.SavedVsNPP)
	}
	t.Logf("found %d, %d, %d of 150; saved %.3f %.3f %.3f", tiny.Found, big.Found, point.Found, tiny.SavedVsNPP, big.SavedVsNPP, point.SavedVsNPP)
	again, err := Measure(ins, cfg)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(rs []Row) []Row {
		rs = slices.Clone(rs)
		for i := range rs {
			rs[i].Seconds = 0
		}
		return rs
	}
	if !slices.Equal(strip(rep.Rows), strip(again.Rows)) || again.Drawn != rep.Drawn {
		t.Errorf("the same seed gave another report:\n%+v\n%+v", rep.Rows, again.Rows)
	}
	cfg.Seed = 2
	other, err := Measure(ins[:1], cfg)
	if err != nil {
		t.Fatal(err)
	}
	if other.Rows[0] == rep.Rows[0] {
		t.Errorf("seed 2 gave seed 1's row")
	}
}

// TestMeasureErrors: stores of different windows are refused naming both;
// a flat map hides no pair; a bad config is ErrConfig.
func TestMeasureErrors(t *testing.T) {
	a := bakeStores(t, heightmap.Window{Col: 0, Row: 0, Width: 24, Height: 24}, 20)
	b := bakeStores(t, heightmap.Window{Col: 1, Row: 0, Width: 24, Height: 24}, 20)
	cfg := DefaultConfig()
	cfg.Pairs, cfg.Players, cfg.Seconds = 10, 4, 1
	_, err := Measure([]Input{a[0], b[0]}, cfg)
	if !errors.Is(err, ErrMaps) || !strings.Contains(err.Error(), a[0].Path) || !strings.Contains(err.Error(), b[0].Path) || !strings.Contains(err.Error(), "window 1,0,24,24") {
		t.Errorf("different windows: %v", err)
	}
	cfg.Players = 1
	if _, err := Measure(a, cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("one player: %v", err)
	}
	// A flat map: every pair sees the other.
	flat := &heightmap.Grid{Width: 32, Height: 32, Elev: make([]float32, 32*32), Dx: 2, Dy: 2}
	p := horizon.DefaultParams()
	p.Sectors, p.LOS = 64, horizon.LOSRegion
	path := filepath.Join(t.TempDir(), "flat.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: flat, Params: p, Outputs: []bake.Output{{Path: path, Cap: compress.Cap{Nodes: 20}}}}); err != nil {
		t.Fatal(err)
	}
	s, gr, err := bake.OpenGrower(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg.Players = 4
	if _, err := Measure([]Input{{Path: path, Store: s, Grower: gr}}, cfg); !errors.Is(err, ErrFewPairs) || !strings.Contains(err.Error(), "0 of 2048 pairs drawn anywhere") {
		t.Errorf("flat map: %v", err)
	}
}

// TestRecommend: the smallest store within the percentage of the largest
// store's packets saved, whatever the rows' order.
func TestRecommend(t *testing.T) {
	r := &Report{Rows: []Row{{Store: "c", FileBytes: 300, SavedVsNPP: 0.90}, {Store: "a", FileBytes: 100, SavedVsNPP: 0.80}, {Store: "b", FileBytes: 200, SavedVsNPP: 0.87}}}
	for _, tc := range []struct {
		pct  float64
		want string
	}{{5, "b"}, {12, "a"}, {1, "c"}, {3.4, "b"}, {3.3, "c"}} {
		if got := r.Recommend(tc.pct); got != tc.want || r.Recommended != tc.want || r.RecommendPct != tc.pct {
			t.Errorf("%g%%: %q, want %q", tc.pct, got, tc.want)
		}
	}
}
