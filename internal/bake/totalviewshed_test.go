package bake

import (
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestTotalViewshed: a bake's total viewshed counts, for every point, the
// cells its per-point viewshed sees (horizon.Worker, the scalar reference),
// on a real window with nodata masked out, whatever the cap.
func TestTotalViewshed(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-urban.tif", heightmap.Options{Window: heightmap.Window{Col: 20, Row: 30, Width: 37, Height: 29}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 256
	tv := make([]uint32, dem.Width*dem.Height)
	dir := t.TempDir()
	if _, err := Run(t.Context(), Config{DEM: dem, Params: p, TotalViewshed: tv,
		Outputs: []Output{{Path: filepath.Join(dir, "s.pvs"), Cap: compress.Cap{Nodes: 9}}}}); err != nil {
		t.Fatal(err)
	}
	m, err := horizon.New(Terrain(dem), p)
	if err != nil {
		t.Fatal(err)
	}
	wk := m.NewWorker()
	var bm horizon.Bitmap
	varied := map[uint32]bool{}
	for r := range dem.Height {
		for c := range dem.Width {
			want := 0
			if dem.Nodata == nil || !dem.Nodata[r*dem.Width+c] {
				if bm, err = wk.Viewshed(c, r, bm); err != nil {
					t.Fatal(err)
				}
				want = bm.CountVisible()
			}
			if got := tv[r*dem.Width+c]; int(got) != want {
				t.Fatalf("point %d,%d: %d visible cells, the worker sees %d", c, r, got, want)
			}
			varied[tv[r*dem.Width+c]] = true
		}
	}
	if len(varied) < 10 {
		t.Errorf("only %d distinct counts: not a test of anything", len(varied))
	}
	if _, err := Run(t.Context(), Config{DEM: dem, Params: p, TotalViewshed: tv[1:],
		Outputs: []Output{{Path: filepath.Join(dir, "t.pvs"), Cap: compress.Cap{Nodes: 9}}}}); err == nil {
		t.Error("a total viewshed of the wrong size was accepted")
	}
}

// TestBlockVisibleCells: the visible cells counted from a block's groups
// equal those of the trees EncodeBlockTrees writes, lane by lane, on every
// block of an oblong window (quads straddling its edges) at two view
// distances.
func TestBlockVisibleCells(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 7, Row: 11, Width: 45, Height: 26}})
	if err != nil {
		t.Fatal(err)
	}
	for _, dist := range []float64{0, 150} {
		p := horizon.ThesisParams()
		p.Sectors, p.MaxDistance = 128, dist
		m, err := horizon.New(Terrain(dem), p)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := quadpvs.NewGeometry(dem.Width, dem.Height)
		bw, enc := m.NewBlockWorker(), quadpvs.NewEncoder(g)
		mask := horizon.NewMask(dem.Width, dem.Height, dem.Nodata)
		var blk horizon.Block
		var trees [horizon.Lanes + horizon.Unions]quadpvs.Tree
		var got [horizon.Lanes]int
		var w quadpvs.Walker
		for row := 0; row < dem.Height; row += horizon.BlockSide {
			for col := 0; col < dem.Width; col += horizon.BlockSide {
				if err := bw.Classify(col, row, mask, &blk); err != nil {
					t.Fatal(err)
				}
				enc.EncodeBlockTrees(&blk, blk.Points, 1<<horizon.Unions-1, &trees)
				enc.BlockVisibleCells(&blk, blk.Points, &got)
				for b := range horizon.Lanes {
					if blk.Points&(1<<b) == 0 {
						continue
					}
					if want := w.VisibleCells(g, &trees[b]); got[b] != want {
						t.Fatalf("max distance %g, block %d,%d lane %d: %d visible cells, its tree has %d", dist, col, row, b, got[b], want)
					}
				}
			}
		}
	}
}
