package bake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestResume: a resumable bake interrupted half-way keeps its finished
// tiles; started again with other parameters it refuses the folder; with
// the same ones it bakes only the tiles missing and writes the stores a
// single bake writes, byte for byte, then empties the folder.
func TestResume(t *testing.T) {
	defer func(n int) { pointsPerTile = n }(pointsPerTile)
	pointsPerTile = 1000
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 96, Height: 80})
	p := horizon.DefaultParams()
	p.Sectors = 64
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	outputs := func(prefix string) []Output {
		return []Output{
			{Path: filepath.Join(dir, prefix+"-a.pvs"), Label: "a", Cap: compress.Cap{Nodes: 60}},
			{Path: filepath.Join(dir, prefix+"-b.pvs"), Label: "b", Cap: compress.Cap{Codes: 400, MinLoss: true}},
		}
	}
	if _, err := Run(context.Background(), Config{DEM: dem, Params: p, Outputs: outputs("single")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	baked := 0
	_, err := Resume(ctx, Config{DEM: dem, Params: p, Outputs: outputs("resumed"), Progress: func(done, total int) {
		baked = done
		if 2*done > total {
			cancel()
		}
	}}, ckpt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	tiles, _ := filepath.Glob(filepath.Join(ckpt, "tile-*.part"))
	n := TileCount(mustGeometry(t, dem), dem.Width*dem.Height)
	if len(tiles) == 0 || len(tiles) >= n {
		t.Fatalf("%d of %d tiles kept after the interruption", len(tiles), n)
	}
	other := p
	other.Sectors = 128
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: other, Outputs: outputs("resumed")}, ckpt); !errors.Is(err, ErrOtherBake) {
		t.Fatalf("resumed with other parameters: %v", err)
	}
	first := -1
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: p, Outputs: outputs("resumed"), Progress: func(done, _ int) {
		if first < 0 {
			first = done
		}
	}}, ckpt); err != nil {
		t.Fatal(err)
	}
	if first <= 0 || first > baked {
		t.Errorf("the resumed bake's first progress at %d points, want past the tiles kept and at most %d", first, baked)
	}
	for i, o := range outputs("single") {
		a, err := os.ReadFile(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(outputs("resumed")[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the resumed bake's store differs from the single bake's", o.Label)
		}
	}
	if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
		t.Errorf("checkpoint folder left: %v", err)
	}
}

func mustGeometry(t *testing.T, dem *heightmap.Grid) quadpvs.Geometry {
	t.Helper()
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
