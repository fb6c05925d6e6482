package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestCheckTifStore: a GeoTIFF store given to bench raw is taken only when
// its map, window, view distance, budget, encoding and model are the
// RAW's; each one changed is refused.
func TestCheckTifStore(t *testing.T) {
	dem, _ := realDEMs(t)
	win := heightmap.Window{Col: 600, Row: 600, Width: 24, Height: 20}
	g, err := heightmap.Load(dem, heightmap.Options{Window: win})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors, p.MaxDistance, p.LOS = 64, 500, horizon.LOSConservative
	geo, err := quadpvs.NewGeometry(g.Width, g.Height)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 1 << 20
	cp, err := compress.CapForBudget(budget, geo.QuadCount())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tif.pvs")
	if _, err := bake.Run(context.Background(), bake.Config{DEM: g, Params: p, Outputs: []bake.Output{{Path: path, Budget: budget, Cap: cp}}}); err != nil {
		t.Fatal(err)
	}
	if err := checkTifStore(path, filepath.Join("/elsewhere", filepath.Base(dem)), win, 500, "1MiB", "flat", horizon.LOSConservative); err != nil {
		t.Fatalf("the store's own settings refused: %v", err)
	}
	other := win
	other.Col++
	for name, err := range map[string]error{
		"map":      checkTifStore(path, "other.tif", win, 500, "1MiB", "flat", horizon.LOSConservative),
		"window":   checkTifStore(path, dem, other, 500, "1MiB", "flat", horizon.LOSConservative),
		"distance": checkTifStore(path, dem, win, 2000, "1MiB", "flat", horizon.LOSConservative),
		"budget":   checkTifStore(path, dem, win, 500, "2MiB", "flat", horizon.LOSConservative),
		"encoding": checkTifStore(path, dem, win, 500, "1MiB", "coded", horizon.LOSConservative),
		"model":    checkTifStore(path, dem, win, 500, "1MiB", "flat", horizon.LOSSector),
	} {
		if err == nil {
			t.Errorf("another %s accepted", name)
		}
	}
}
