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
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// demoWindow is the part of the demo DEM the example bakes: 48×40 cells of
// 10 m.
var demoWindow = heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}

// This example is a whole program: bake a window of a DEM into a store,
// open it, and ask for the frontier set of two players with lossy merges
// and a bound on the work, as a game server would on every move.
func Example_frontierSet() {
	dir, err := os.MkdirTemp("", "frontiersets-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	dem, err := heightmap.Load("data/demo-hills.tif", heightmap.Options{Window: demoWindow})
	if err != nil {
		log.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors = 256
	path := filepath.Join(dir, "demo.pvs")
	if _, err := frontiersets.Bake(context.Background(), dem, path, frontiersets.BakeOptions{Params: p, Nodes: 40}); err != nil {
		log.Fatal(err)
	}

	s, err := frontiersets.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.Frontier([2]int{2, 2}, [2]int{45, 37}, grow.Options{Merge: quadpvs.Lossy, MaxSteps: 125})
	if err != nil {
		log.Fatal(err)
	}
	if res.MutuallyVisible {
		fmt.Println("the players see each other")
		return
	}
	fmt.Printf("A's region: %d cells in %d quads\n", res.A.Points, len(res.A.Quads))
	fmt.Println("B's region holds (40,30):", res.B.Contains(40, 30))
	// Output:
	// A's region: 24 cells in 3 quads
	// B's region holds (40,30): true
}
