package quadtree

import (
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// TestEncodeBlock: on windows of both real DEMs (sizes that are not
// powers of two, nodata cells), every lane's EncodeBlockTrees tree is byte for
// byte EncodeLevels' of the point's Classify pyramid, and every union's is
// the normalised lossless merge of its points' trees — the hierarchy
// builder's level-1 and level-2 quads.
func TestEncodeBlock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		win    heightmap.Window
		nodata bool
	}{
		{"N44W072.hgt", heightmap.Window{Col: 810, Row: 850, Width: 45, Height: 38}, false},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 42}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dem := testdem.Load(t, tc.name, tc.win, heightmap.Options{})
			var nodata []bool
			if tc.nodata {
				nodata = make([]bool, len(dem.Elev))
				for i := range nodata {
					nodata[i] = i%53 == 7
				}
			}
			m, err := horizon.New(horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, horizon.ThesisParams())
			if err != nil {
				t.Fatal(err)
			}
			mask := horizon.NewMask(dem.Width, dem.Height, nodata)
			g, _ := NewGeometry(dem.Width, dem.Height)
			enc := NewEncoder(g)
			wk, bw := m.NewWorker(), m.NewBlockWorker()
			lv := horizon.NewLevels(dem.Width, dem.Height)
			var blk horizon.Block
			var want, acc, tmp, norm Tree
			var mg Merger
			var z Normalizer
			var capper Capper
			for row := 0; row < dem.Height; row += horizon.BlockSide {
				for col := 0; col < dem.Width; col += horizon.BlockSide {
					if err := bw.Classify(col, row, mask, &blk); err != nil {
						t.Fatal(err)
					}
					var all, trunc [horizon.Lanes + horizon.Unions]Tree
					enc.EncodeBlockTrees(&blk, blk.Points, 0x1f, &all)
					enc.EncodeBlockTruncated(&blk, blk.Points, 0x1f, &trunc)
					for i := range all {
						if all[i].Len() > 0 {
							checkTruncated(t, &capper, &all[i], &trunc[i])
						}
					}
					var lanes [horizon.Lanes]Tree
					for b := range horizon.Lanes {
						c, r := col+b%horizon.BlockSide, row+b/horizon.BlockSide
						if c >= dem.Width || r >= dem.Height {
							continue
						}
						if err := wk.Classify(c, r, lv, mask); err != nil {
							t.Fatal(err)
						}
						enc.EncodeLevels(lv, &want)
						if !equalTrees(&want, &all[b]) {
							t.Fatalf("point (%d,%d): EncodeBlockTrees differs from EncodeLevels", c, r)
						}
						lanes[b] = all[b].Clone()
					}
					for j, ls := range [horizon.Unions]uint16{0x0033, 0x00cc, 0x3300, 0xcc00, 0xffff} {
						first := true
						for b := range horizon.Lanes {
							if ls&(1<<b) == 0 || lanes[b].Len() == 0 {
								continue
							}
							if first {
								lanes[b].CopyTo(&acc)
								first = false
							} else {
								mg.MergeInto(&acc, &tmp, &lanes[b], Lossless)
							}
						}
						if first {
							continue // no point of the terrain in this union
						}
						z.Normalize(&norm, &acc)
						if !equalTrees(&norm, &all[horizon.Lanes+j]) {
							t.Fatalf("block (%d,%d) union %d: EncodeBlockTrees differs from the normalised merge", col, row, j)
						}
					}
				}
			}
		})
	}
}

// checkTruncated: the cap continues from a tree truncated at level 1 as
// from the whole tree, for every cap below the truncated size (codes and
// nodes), and capping the whole tree at the truncated size gives it.
func checkTruncated(t *testing.T, c *Capper, full, trunc *Tree) {
	t.Helper()
	var a, b Tree
	if trunc.Len() < full.Len() {
		c.CapCodes(&a, full, trunc.Len())
		if !equalTrees(&a, trunc) {
			t.Fatalf("cap at the truncated size (%d codes of %d) is not the truncated tree", trunc.Len(), full.Len())
		}
	}
	for _, l := range []int{trunc.Len() - 1, trunc.Len() * 2 / 3, trunc.Len() / 3, 40, 9, 1} {
		if l < 1 || l >= trunc.Len() {
			continue
		}
		c.CapCodes(&a, full, l)
		c.CapCodes(&b, trunc, l)
		if !equalTrees(&a, &b) {
			t.Fatalf("cap at %d codes: from the truncated tree (%d codes) differs from the whole tree's (%d)", l, trunc.Len(), full.Len())
		}
	}
	for _, l := range []int{trunc.Nodes() - 1, trunc.Nodes() / 2, 7} {
		if l < 1 || l >= trunc.Nodes() {
			continue
		}
		c.Cap(&a, full, l)
		c.Cap(&b, trunc, l)
		if !equalTrees(&a, &b) {
			t.Fatalf("cap at %d nodes: from the truncated tree differs from the whole tree's", l)
		}
	}
}
