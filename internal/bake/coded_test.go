package bake

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestCodedBake: a bake straight to a coded store fills its budget — the
// store read back takes at most the budget and most of it — with trees
// that keep a subset of the uncapped bake's hidden cells (conservative)
// and more of them than a flat store of the same budget; every tree reads
// and checks.
func TestCodedBake(t *testing.T) {
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 96, Height: 80})
	dir := t.TempDir()
	exact, flat, coded := filepath.Join(dir, "exact.pvs"), filepath.Join(dir, "flat.pvs"), filepath.Join(dir, "coded.pvs")
	p := horizon.ThesisParams()
	p.Sectors = 256
	const budget = 2_000_000 // the coder's 1.3 MB of tables take much of a small store's budget
	quads := func() int { g, _ := quadpvs.NewGeometry(dem.Width, dem.Height); return g.QuadCount() }()
	fc, err := compress.CapForBudget(budget, quads)
	if err != nil {
		t.Fatal(err)
	}
	fc.MinLoss = true
	stats, err := Run(context.Background(), Config{DEM: dem, Params: p, HiddenSample: 1, Outputs: []Output{
		{Path: exact, Budget: 1 << 30, Cap: compress.Cap{Codes: 1 << 30}},
		{Path: flat, Budget: budget, Cap: fc},
		{Path: coded, Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	se, err := OpenStore(exact)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := OpenStore(coded)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.Check(); err != nil {
		t.Fatal(err)
	}
	mem := int64(sc.Hierarchy.Bytes())
	if sc.Encoding != compress.EncodingCoded || mem > budget || mem < budget*80/100 || stats[2].MemoryBytes != mem || sc.MemoryBytes != mem {
		t.Fatalf("coded store: encoding %q, %d bytes in memory (stats %d, file's %d) for a budget of %d", sc.Encoding, mem, stats[2].MemoryBytes, sc.MemoryBytes, budget)
	}
	if sc.Allocation == nil || sc.Allocation.Accounting != "coded" || !(sc.Allocation.Threshold > 0) {
		t.Errorf("allocation %+v", sc.Allocation)
	}
	if !(stats[2].HiddenKept > stats[1].HiddenKept) {
		t.Errorf("hidden kept: coded %.4f, flat %.4f at the same budget", stats[2].HiddenKept, stats[1].HiddenKept)
	}
	g := se.Hierarchy.G
	var w quadpvs.Walker
	var bc, be horizon.Bitmap
	kept, all := 0, 0
	for q := range se.Hierarchy.Quads() {
		te, tc := se.Hierarchy.PVS(q), sc.Hierarchy.PVS(q)
		be = w.Bitmap(g, &te, be)
		bc = w.Bitmap(g, &tc, bc)
		for i, word := range be.Words {
			if word&^bc.Words[i] != 0 {
				t.Fatalf("quad %d: the coded store hides a cell the uncapped one shows", q)
			}
		}
		kept += w.HiddenCells(g, &tc)
		all += w.HiddenCells(g, &te)
	}
	t.Logf("coded: %d of %d bytes, hidden kept %.4f (all quads %.4f), flat %.4f; price %.3g", mem, budget, stats[2].HiddenKept, float64(kept)/float64(all), stats[1].HiddenKept, sc.Allocation.Threshold)
}

// TestCodedBakeSameBytes: a coded bake writes the same bytes on one worker
// and on three (the price steps are chosen at checkpoints of the bake's
// order, not when a goroutine comes by).
func TestCodedBakeSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("two bakes of 19,500 points (make check)")
	}
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 150, Height: 130})
	p := horizon.ThesisParams()
	p.Sectors = 64
	quads := func() int { g, _ := quadpvs.NewGeometry(dem.Width, dem.Height); return g.QuadCount() }()
	var files [2][]byte
	for k, workers := range []int{1, 3} {
		path := filepath.Join(t.TempDir(), "coded.pvs")
		const budget = 2_400_000
		if _, err := Run(context.Background(), Config{DEM: dem, Params: p, Workers: workers, Outputs: []Output{
			{Path: path, Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true},
		}}); err != nil {
			t.Fatal(err)
		}
		var err error
		if files[k], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("one worker and three wrote different coded stores")
	}
}

// TestProject: the projection does a worker's work on whole tiles of
// points — with flat, min-loss and coded outputs (the coded one at the
// projection's price, without the sample's schedule) — and projects from
// the points it timed.
func TestProject(t *testing.T) {
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 40, Height: 36})
	p := horizon.ThesisParams()
	p.Sectors = 64
	quads := func() int { g, _ := quadpvs.NewGeometry(dem.Width, dem.Height); return g.QuadCount() }()
	const budget = 2_000_000
	cfg := Config{DEM: dem, Params: p, Workers: 2, Outputs: []Output{
		{Path: "flat", Budget: budget, Cap: compress.Cap{Codes: 40}},
		{Path: "minloss", Budget: budget, Cap: compress.Cap{Nodes: 30, MinLoss: true}},
		{Path: "coded", Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true},
	}}
	// Two of the 3×3 tiles of 16² points: 256 points each, bar the grid's
	// edge (tiles of 8×16, 16×4 and 8×4 points on the last column and row).
	pr, err := Project(context.Background(), cfg, 2*horizon.TileSide*horizon.TileSide, 0)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Samples < 2*32 || pr.Samples > 2*256 || !(pr.PerPoint > 0) {
		t.Fatalf("projection %+v: want 64 to 512 points timed", pr)
	}
	if want := time.Duration(float64(pr.PerPoint) * 40 * 36 / 2); pr.Wall != want {
		t.Errorf("projected %v, want per point × points ÷ workers = %v", pr.Wall, want)
	}
}
