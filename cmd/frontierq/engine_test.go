package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
)

// TestWorldQueries: on a store of a Unity RAW with an engine frame, players
// given in world coordinates (--a-world) land on the cells they name,
// --json gives their world positions, and --geojson draws the frontiers
// in world coordinates, inside the terrain's world bounds.
func TestWorldQueries(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "u.pvs")
	unityStore(t, store, heightmap.Window{Col: 100, Row: 60, Width: 40, Height: 32}, true, 1)
	// Cell (3, 4) of the window is file sample (103, 64): x = −10200 +
	// 80·103, z = 500 + 80·64; cell (36, 29) is sample (136, 89).
	a, b := "-1960,5620", "680,7620"
	geo := filepath.Join(dir, "f.geojson")
	out, errOut, code := runCmd(store, "--a-world", a, "--b-world", b, "--json", "--geojson", geo)
	if code != 0 {
		t.Fatal(errOut)
	}
	var r resultJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.A.Col != 3 || r.A.Row != 4 || r.B.Col != 36 || r.B.Row != 29 || r.A.World == nil || *r.A.World != [2]float64{-1960, 5620} {
		t.Fatalf("players at %d,%d (world %v) and %d,%d, want 3,4 at -1960,5620 and 36,29", r.A.Col, r.A.Row, r.A.World, r.B.Col, r.B.Row)
	}
	if r.MutuallyVisible {
		t.Skip("the two players see each other: no regions to draw")
	}
	b2, err := os.ReadFile(geo)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Geometry struct {
				Coordinates [][][2]float64
			}
		}
	}
	if err := json.Unmarshal(b2, &fc); err != nil || len(fc.Features) == 0 {
		t.Fatalf("GeoJSON: %v %s", err, b2)
	}
	// The window's squares span x −2240 to 960, z 5260 to 7820.
	for _, ft := range fc.Features {
		for _, ring := range ft.Geometry.Coordinates {
			for _, pt := range ring {
				if pt[0] < -2240 || pt[0] > 960 || pt[1] < 5260 || pt[1] > 7820 {
					t.Fatalf("a polygon vertex at %v, off the terrain's world bounds", pt)
				}
			}
		}
	}
	// The terrain is the hull of the window's samples: x −2200 to 920, z
	// 5300 to 7780 (it took the squares' half a cell beyond).
	if _, errOut, code := runCmd(store, "--a-world", "-2239,5620", "--b", "1,1"); code != 1 || !strings.Contains(errOut, "x -2200 to 920, z 5300 to 7780") {
		t.Errorf("a world position off the terrain: exit %d, %s", code, errOut)
	}
	for _, edge := range []string{"-2200,5300", "920,7780"} {
		if _, errOut, code := runCmd(store, "--a-world", edge, "--b", "20,20"); code != 0 {
			t.Errorf("--a-world %s, the terrain's corner: exit %d, %s", edge, code, errOut)
		}
	}
}

// TestWorldBoundsPVSCells: on a store of PVS cells of 2×2 samples over a
// window of 41×33 samples, the world positions accepted are the samples'
// hull, not the squares of the PVS cells, the last of which reaches a
// sample past the window's edge (80 m off a 201×199 window at k = 2).
func TestWorldBoundsPVSCells(t *testing.T) {
	store := filepath.Join(t.TempDir(), "k2.pvs")
	unityStore(t, store, heightmap.Window{Col: 100, Row: 60, Width: 41, Height: 33}, true, 2)
	// Samples x −2200 to 1000, z 5300 to 7860.
	for _, tc := range []struct {
		a    string
		code int
	}{
		{"-2200,5300", 0}, {"1000,7860", 0}, {"-2201,5300", 1}, {"1001,7000", 1}, {"0,7861", 1}, {"1040,7900", 1},
	} {
		_, errOut, code := runCmd(store, "--a-world", tc.a, "--b", "1,1")
		if code != tc.code || code == 1 && !strings.Contains(errOut, "x -2200 to 1000, z 5300 to 7860") {
			t.Errorf("--a-world %s: exit %d (want %d): %s", tc.a, code, tc.code, errOut)
		}
	}
}

// unityStore bakes window win of data/demo-unity.raw (80 m cells, 0 to
// 2,000 m) into path with the default model at 64 sectors, 40 nodes a PVS,
// on PVS cells of k×k samples; with unity, in Unity's world with the
// file's corner sample at x −10,200, z 500 (rows along +z).
func unityStore(t *testing.T, path string, win heightmap.Window, unity bool, k int) {
	t.Helper()
	dem, err := heightmap.Load("../../data/demo-unity.raw", heightmap.Options{CellSize: 80, HeightRange: [2]float64{0, 2000}, Window: win})
	if err != nil {
		t.Fatal(err)
	}
	if unity {
		f, err := heightmap.NewEngineFrame("unity", dem.Dx, dem.Dy, [2]float64{-10200, 500}, false, dem.SourceSize[1])
		if err != nil {
			t.Fatal(err)
		}
		dem.Engine = f.Window(dem.Window.Col, dem.Window.Row)
	}
	if dem, err = heightmap.Coarsen(dem, k); err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors = 64
	if k > 1 {
		p.PVSCell = k
	}
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: path, Cap: compress.Cap{Nodes: 40}}}}); err != nil {
		t.Fatal(err)
	}
}
