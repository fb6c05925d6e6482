package frontiersets_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	_ "github.com/frontiersets/frontiersets/heightmap/gdal" // GeoTIFFs load through GDAL
	"github.com/frontiersets/frontiersets/horizon"
)

// bakeDemo bakes a 48×40 window of the demo terrain (10 m cells) to a
// temporary store, as ExampleBake does.
func bakeDemo() (string, func()) {
	dir, err := os.MkdirTemp("", "frontiersets-example")
	if err != nil {
		log.Fatal(err)
	}
	dem, err := heightmap.Load("data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		log.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors = 256
	path := filepath.Join(dir, "demo.pvs")
	if _, err := frontiersets.Bake(context.Background(), dem, path, frontiersets.BakeOptions{Params: p, Nodes: 40}); err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Bake a window of a DEM into a store capped at a memory budget.
func ExampleBake() {
	dir, _ := os.MkdirTemp("", "frontiersets-example")
	defer os.RemoveAll(dir)
	dem, err := heightmap.Load("data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		log.Fatal(err)
	}
	p := horizon.DefaultParams() // 1,024 sectors, eye and target 1.8 m above the ground
	p.Sectors = 256
	st, err := frontiersets.Bake(context.Background(), dem, filepath.Join(dir, "demo.pvs"),
		frontiersets.BakeOptions{Params: p, BudgetBytes: 256 << 10})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d quads, at most %d nodes per PVS\n", st.Quads, st.NodesMax)
	// Output: 2564 quads, at most 221 nodes per PVS
}

// Open a store and grow the frontier set of two players.
func ExampleOpen() {
	path, done := bakeDemo()
	defer done()
	s, err := frontiersets.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.Frontier([2]int{2, 2}, [2]int{45, 37}, grow.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("see each other:", res.MutuallyVisible)
	fmt.Printf("A's region: %d cells, B's: %d cells\n", res.A.Points, res.B.Points)
	// Output:
	// see each other: false
	// A's region: 24 cells, B's: 832 cells
}

// Locate a player by longitude and latitude, and read the map coordinates
// and elevation of its cell.
func ExampleStore_LonLatToCell() {
	path, done := bakeDemo()
	defer done()
	s, err := frontiersets.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	col, row, err := s.LonLatToCell(-71.5068, 44.4805)
	if err != nil {
		log.Fatal(err)
	}
	x, y, _ := s.CellToMap(col, row)
	z, _ := s.Elevation(col, row)
	fmt.Printf("cell %d,%d: UTM 19N %.0f E %.0f N, %.0f m\n", col, row, x, y, z)
	// Output: cell 24,20: UTM 19N 300645 E 4928295 N, 46 m
}

// Grow the frontier set of players standing between samples, from a store
// of the region model, whose frontier sets hold for every position in
// their cells.
func ExampleStore_FrontierAt() {
	dir, _ := os.MkdirTemp("", "frontiersets-example")
	defer os.RemoveAll(dir)
	dem, err := heightmap.Load("data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		log.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors, p.LOS = 256, horizon.LOSRegion
	path := filepath.Join(dir, "region.pvs")
	if _, err := frontiersets.Bake(context.Background(), dem, path, frontiersets.BakeOptions{Params: p, Nodes: 40}); err != nil {
		log.Fatal(err)
	}
	s, err := frontiersets.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.FrontierAt([2]float64{2.3, 1.8}, [2]float64{44.6, 37.2}, grow.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("see each other:", res.MutuallyVisible)
	fmt.Printf("A at cell %d,%d; B at cell %d,%d\n", res.A.Col, res.A.Row, res.B.Col, res.B.Row)
	_, err = s.FrontierAt([2]float64{47.5, 0}, [2]float64{1, 1}, grow.Options{})
	fmt.Println(err)
	// Output:
	// see each other: false
	// A at cell 2,2; B at cell 45,37
	// frontiersets: position 47.5,0 is outside the 48×40 grid (cells -0.5 to 47.5, -0.5 to 39.5)
}
