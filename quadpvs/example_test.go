package quadpvs_test

import (
	"fmt"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Two points' PVSs on an 8×6 terrain, from their viewshed bitmaps (row-major
// cells), merged losslessly and lossily (§3.3): the lossless union is exact,
// the lossy one is smaller and never hides a cell either PVS shows.
func Example() {
	g, err := quadpvs.NewGeometry(8, 6)
	if err != nil {
		panic(err)
	}
	enc := quadpvs.NewEncoder(g)
	var a, b quadpvs.Tree
	left, corner := horizon.NewBitmap(8, 6), horizon.NewBitmap(8, 6)
	for row := range 6 {
		for col := range 8 {
			left.Set(col, row, col < 4)               // the west half
			corner.Set(col, row, col >= 6 && row < 2) // a 2×2 quad in the north-east
		}
	}
	if err := enc.Encode(left, &a); err != nil {
		panic(err)
	}
	if err := enc.Encode(corner, &b); err != nil {
		panic(err)
	}
	var m quadpvs.Merger
	var exact, lossy quadpvs.Tree
	m.Merge(&exact, &a, &b, quadpvs.Lossless)
	m.Merge(&lossy, &a, &b, quadpvs.Lossy)
	var w quadpvs.Walker
	fmt.Println("nodes:", a.Nodes(), b.Nodes(), exact.Nodes(), lossy.Nodes())
	fmt.Println("visible cells:", w.VisibleCells(g, &exact), w.VisibleCells(g, &lossy))
	fmt.Println("cell (7,0):", exact.CellStatus(g, 7, 0), "cell (7,5):", exact.CellStatus(g, 7, 5), lossy.CellStatus(g, 7, 5))
	// Output:
	// nodes: 5 9 9 5
	// visible cells: 28 40
	// cell (7,0): visible cell (7,5): hidden hidden
}
