package quadtree

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// TestEncodeLevelsMatchesBitmap: deciding whole quads from bounds
// (horizon.Worker.Classify) and encoding the pyramid gives exactly the tree
// of the per-cell viewshed bitmap, on real windows (square and not), with a
// view distance, Earth curvature and a nodata mask.
func TestEncodeLevelsMatchesBitmap(t *testing.T) {
	type tc struct {
		name   string
		win    heightmap.Window
		params func(*horizon.Params)
		holes  bool
	}
	cases := []tc{
		{"N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 96, Height: 96}, nil, false},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 200, Row: 250, Width: 100, Height: 70}, nil, false},
		{"N44W072.hgt", heightmap.Window{Col: 500, Row: 600, Width: 77, Height: 120}, func(p *horizon.Params) { p.MaxDistance = 2400 }, false},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 90, Height: 90}, func(p *horizon.Params) { p.MaxDistance = 20 }, true},
		{"N44W072.hgt", heightmap.Window{Col: 900, Row: 200, Width: 64, Height: 64}, func(p *horizon.Params) {
			p.EarthCurvature, p.Refraction, p.Sectors = true, 0.13, 256
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dem := testdem.Load(t, c.name, c.win, heightmap.Options{})
			p := horizon.ThesisParams()
			if c.params != nil {
				c.params(&p)
			}
			ter := horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}
			m, err := horizon.New(ter, p)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			var mask *horizon.Mask
			nodata := make([]bool, dem.Width*dem.Height)
			if c.holes {
				for range 300 { // scattered cells and a block without data
					nodata[rng.IntN(len(nodata))] = true
				}
				for r := 10; r < 30; r++ {
					for col := 5; col < 21; col++ {
						nodata[r*dem.Width+col] = true
					}
				}
				mask = horizon.NewMask(dem.Width, dem.Height, nodata)
			}
			g, _ := NewGeometry(dem.Width, dem.Height)
			enc := NewEncoder(g)
			w := m.NewWorker()
			lv := horizon.NewLevels(dem.Width, dem.Height)
			var want, got Tree
			for i := range 60 {
				col, row := rng.IntN(dem.Width), rng.IntN(dem.Height)
				if i == 0 {
					col, row = 0, dem.Height-1
				}
				bm, err := w.Viewshed(col, row, horizon.Bitmap{})
				if err != nil {
					t.Fatal(err)
				}
				if c.holes {
					for j, nd := range nodata {
						if nd || nodata[row*dem.Width+col] {
							bm.Words[j>>6] &^= 1 << (uint(j) & 63)
						}
					}
				}
				if err := enc.Encode(bm, &want); err != nil {
					t.Fatal(err)
				}
				if err := w.Classify(col, row, lv, mask); err != nil {
					t.Fatal(err)
				}
				if err := enc.EncodeLevels(lv, &got); err != nil {
					t.Fatal(err)
				}
				if !equalTrees(&want, &got) {
					t.Fatalf("observer (%d,%d): quad classification gives %d codes, the bitmap %d", col, row, got.Len(), want.Len())
				}
			}
		})
	}
}

func equalTrees(a, b *Tree) bool {
	if a.n != b.n || a.nodes != b.nodes || len(a.codes) != len(b.codes) {
		return false
	}
	for i := range a.codes {
		if a.codes[i] != b.codes[i] {
			return false
		}
	}
	return true
}
