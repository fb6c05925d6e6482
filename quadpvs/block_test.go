package quadpvs

import (
	"os"
	"path/filepath"
	"testing"

	"frontiersets/heightmap"
	"frontiersets/horizon"
)

// TestEncodeBlock: on windows of both real DEMs (sizes that are not
// powers of two, nodata cells), every lane's EncodeBlock tree is byte for
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
			p := filepath.Join("../../shared/data", tc.name)
			if _, err := os.Stat(p); err != nil {
				t.Skipf("real DEM %s absent: %v", p, err)
			}
			dem, err := heightmap.Load(p, heightmap.Options{Window: tc.win})
			if err != nil {
				t.Skip(err)
			}
			var nodata []bool
			if tc.nodata {
				nodata = make([]bool, len(dem.Elev))
				for i := range nodata {
					nodata[i] = i%53 == 7
				}
			}
			m, err := horizon.New(horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, horizon.DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			mask := horizon.NewMask(dem.Width, dem.Height, nodata)
			g, _ := NewGeometry(dem.Width, dem.Height)
			enc := NewEncoder(g)
			wk, bw := m.NewWorker(), m.NewBlockWorker()
			lv := horizon.NewLevels(dem.Width, dem.Height)
			var blk horizon.Block
			var want, got, acc, tmp, norm Tree
			var mg Merger
			var z Normalizer
			for row := 0; row < dem.Height; row += horizon.BlockSide {
				for col := 0; col < dem.Width; col += horizon.BlockSide {
					if err := bw.Classify(col, row, mask, &blk); err != nil {
						t.Fatal(err)
					}
					var all [horizon.Lanes + horizon.Unions]Tree
					enc.EncodeBlockTrees(&blk, blk.Points, 0x1f, &all)
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
						enc.EncodeBlock(&blk, b, &got)
						if !equalTrees(&want, &got) || !equalTrees(&want, &all[b]) {
							t.Fatalf("point (%d,%d): EncodeBlock or EncodeBlockTrees differs from EncodeLevels", c, r)
						}
						lanes[b] = got.Clone()
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
						enc.EncodeBlock(&blk, horizon.Lanes+j, &got)
						if !equalTrees(&norm, &got) || !equalTrees(&norm, &all[horizon.Lanes+j]) {
							t.Fatalf("block (%d,%d) union %d: EncodeBlock differs from the normalised merge", col, row, j)
						}
					}
				}
			}
		})
	}
}
