package horizon

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// levelCodes returns a Classify pyramid's classes in predictive-quadtree
// code order: the root, then breadth first the four children of every
// Mixed quad, 3 for a child past the terrain's edge (quadpvs.Encoder.emit).
func levelCodes(lv Levels, width, height int) []uint8 {
	top := len(lv) - 1
	codes := []uint8{lv[top][0]}
	var cur, next [][2]int
	if lv[top][0] == QuadMixed {
		cur = append(cur, [2]int{0, 0})
	}
	for l := top - 1; len(cur) > 0; l-- {
		cc, cr := quadsAcross(width, height, l)
		next = next[:0]
		for _, p := range cur {
			for k := range 4 {
				x, y := 2*p[0]+k&1, 2*p[1]+k>>1
				if x >= cc || y >= cr {
					codes = append(codes, 3)
					continue
				}
				s := lv[l][y*cc+x]
				codes = append(codes, s)
				if s == QuadMixed {
					next = append(next, [2]int{x, y})
				}
			}
		}
		cur, next = next, cur
	}
	return codes
}

// laneCode is lane (or union) bit's code in classes (hid, vis).
func laneCode(hid, vis, bit uint16) uint8 {
	h, v := hid&bit != 0, vis&bit != 0
	switch {
	case h && v:
		return 3
	case h:
		return QuadHidden
	case v:
		return QuadVisible
	}
	return QuadMixed
}

// blockCodes returns lane b's codes in blk (union b-Lanes when b ≥ Lanes).
func blockCodes(blk *Block, b int) []uint8 {
	var codes []uint8
	if b < Lanes {
		bit := uint16(1) << b
		codes = append(codes, laneCode(blk.Root.Hid, blk.Root.Vis, bit))
		for _, gs := range blk.Groups {
			for _, g := range gs {
				if g.Lanes&bit != 0 {
					for _, c := range g.Child {
						codes = append(codes, laneCode(c.Hid, c.Vis, bit))
					}
				}
			}
		}
		return codes
	}
	bit := uint16(1) << (b - Lanes)
	codes = append(codes, laneCode(uint16(blk.URoot.Hid), uint16(blk.URoot.Vis), bit))
	for _, gs := range blk.Groups {
		for _, g := range gs {
			if uint16(g.Unions)&bit != 0 {
				for _, c := range g.UChild {
					codes = append(codes, laneCode(uint16(c.Hid), uint16(c.Vis), bit))
				}
			}
		}
	}
	return codes
}

// truncLevels returns lv truncated at level 1: every mixed level-1 quad
// visible, then every mixed quad whose children inside the grid are all
// visible, up; the cells are dropped (level 0 all hidden, never read).
func truncLevels(lv Levels, width, height int) Levels {
	t := NewLevels(width, height)
	for l := 1; l < len(lv); l++ {
		copy(t[l], lv[l])
	}
	if len(lv) < 2 {
		return lv
	}
	for i, c := range t[1] {
		if c == QuadMixed {
			t[1][i] = QuadVisible
		}
	}
	for l := 2; l < len(t); l++ {
		cc, cr := quadsAcross(width, height, l-1)
		pc, pr := quadsAcross(width, height, l)
		for y := range pr {
			for x := range pc {
				if t[l][y*pc+x] != QuadMixed {
					continue
				}
				allV := true
				for k := range 4 {
					cx, cy := 2*x+k&1, 2*y+k>>1
					if cx < cc && cy < cr && t[l-1][cy*cc+cx] != QuadVisible {
						allV = false
					}
				}
				if allV {
					t[l][y*pc+x] = QuadVisible
				}
			}
		}
	}
	return t
}

// blockTruncCodes is blockCodes for the pyramids truncated at level 1.
func blockTruncCodes(blk *Block, b int) []uint8 {
	code := func(hid, tv, bit uint16) uint8 {
		if hid&bit != 0 && tv&bit != 0 {
			return 3
		}
		return laneCode(hid, tv, bit)
	}
	var codes []uint8
	if b < Lanes {
		bit := uint16(1) << b
		codes = append(codes, code(blk.Root.Hid, blk.TRoot, bit))
		for _, gs := range blk.Groups {
			for _, g := range gs {
				if g.TLanes&bit != 0 {
					for k, c := range g.Child {
						codes = append(codes, code(c.Hid, g.TVis[k], bit))
					}
				}
			}
		}
		return codes
	}
	bit := uint16(1) << (b - Lanes)
	codes = append(codes, code(uint16(blk.URoot.Hid), uint16(blk.UTRoot), bit))
	for _, gs := range blk.Groups {
		for _, g := range gs {
			if uint16(g.TUnions)&bit != 0 {
				for k, c := range g.UChild {
					codes = append(codes, code(uint16(c.Hid), uint16(g.UTVis[k]), bit))
				}
			}
		}
	}
	return codes
}

// bitmapLevels returns the canonical pyramid of a bitmap, cells outside
// mask hidden.
func bitmapLevels(bm Bitmap, mask *Mask) Levels {
	lv := NewLevels(bm.Width, bm.Height)
	for i := range lv[0] {
		if bm.Words[i>>6]>>(uint(i)&63)&1 != 0 && (mask == nil || mask.lv[0][i] != QuadHidden) {
			lv[0][i] = QuadVisible
		}
	}
	for l := 1; l < len(lv); l++ {
		cc, cr := quadsAcross(bm.Width, bm.Height, l-1)
		pc, pr := quadsAcross(bm.Width, bm.Height, l)
		for y := range pr {
			for x := range pc {
				seen := uint8(0)
				for k := range 4 {
					cx, cy := 2*x+k&1, 2*y+k>>1
					if cx < cc && cy < cr {
						seen |= 1 << lv[l-1][cy*cc+cx]
					}
				}
				lv[l][y*pc+x] = combined[seen]
			}
		}
	}
	return lv
}

// checkBlocks compares every block of ter, p (mask when not nil) with the
// per-observer engine: each lane's pyramid with Classify's, each union's
// with the canonical pyramid of the union of the lanes' viewsheds.
func checkBlocks(t *testing.T, ter Terrain, p Params, nodata []bool) {
	t.Helper()
	m, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	var mask *Mask
	if nodata != nil {
		mask = NewMask(ter.Width, ter.Height, nodata)
	}
	w, bw := m.NewWorker(), m.NewBlockWorker()
	lv := NewLevels(ter.Width, ter.Height)
	var blk Block
	bms := make([]Bitmap, Lanes)
	for row := 0; row < ter.Height; row += BlockSide {
		for col := 0; col < ter.Width; col += BlockSide {
			if err := bw.Classify(col, row, mask, &blk); err != nil {
				t.Fatal(err)
			}
			for b := range Lanes {
				c, r := col+b%BlockSide, row+b/BlockSide
				bms[b] = NewBitmap(ter.Width, ter.Height)
				if c >= ter.Width || r >= ter.Height {
					if blk.Points&(1<<b) != 0 {
						t.Fatalf("block (%d,%d): lane %d outside the grid is a point", col, row, b)
					}
					continue
				}
				if err := w.Classify(c, r, lv, mask); err != nil {
					t.Fatal(err)
				}
				want, got := levelCodes(lv, ter.Width, ter.Height), blockCodes(&blk, b)
				if !slices.Equal(got, want) {
					t.Fatalf("observer (%d,%d), lane %d of block (%d,%d): %d codes, Classify %d; first difference at %d",
						c, r, b, col, row, len(got), len(want), firstDiff(got, want))
				}
				want, got = levelCodes(truncLevels(lv, ter.Width, ter.Height), ter.Width, ter.Height), blockTruncCodes(&blk, b)
				if !slices.Equal(got, want) {
					t.Fatalf("observer (%d,%d), lane %d of block (%d,%d), truncated at level 1: %d codes, want %d; first difference at %d",
						c, r, b, col, row, len(got), len(want), firstDiff(got, want))
				}
				if mask == nil || mask.lv[0][r*ter.Width+c] != QuadHidden {
					bms[b], _ = w.Viewshed(c, r, bms[b])
				}
			}
			for j, ls := range unionLanes {
				if blk.Points&ls == 0 {
					continue
				}
				u := NewBitmap(ter.Width, ter.Height)
				for b := range Lanes {
					if ls&(1<<b) != 0 {
						for i := range u.Words {
							u.Words[i] |= bms[b].Words[i]
						}
					}
				}
				ul := bitmapLevels(u, mask)
				want, got := levelCodes(ul, ter.Width, ter.Height), blockCodes(&blk, Lanes+j)
				if !slices.Equal(got, want) {
					t.Fatalf("block (%d,%d), union %d: %d codes, canonical union %d; first difference at %d",
						col, row, j, len(got), len(want), firstDiff(got, want))
				}
				want, got = levelCodes(truncLevels(ul, ter.Width, ter.Height), ter.Width, ter.Height), blockTruncCodes(&blk, Lanes+j)
				if !slices.Equal(got, want) {
					t.Fatalf("block (%d,%d), union %d truncated at level 1: %d codes, want %d; first difference at %d",
						col, row, j, len(got), len(want), firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(a, b []uint8) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// cropWindow returns a window of a testdata crop.
func cropWindow(t *testing.T, name string, col, row, w, h int) Terrain {
	ter := readCrop(t, name)
	out := Terrain{Width: w, Height: h, Elev: make([]float32, w*h), Dx: ter.Dx, Dy: ter.Dy}
	for r := range h {
		copy(out.Elev[r*w:], ter.Elev[(row+r)*ter.Width+col:(row+r)*ter.Width+col+w])
	}
	return out
}

// TestBlockMatchesClassify: every lane of every block has Classify's
// pyramid and every union the canonical pyramid of the lanes' union, on
// the two real crops and on synthetic terrains with every option, sizes
// from one cell to the crops, S from 8 to 4096, with and without nodata.
func TestBlockMatchesClassify(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	random := func(w, h int, relief float64) Terrain {
		ter := Terrain{Width: w, Height: h, Elev: make([]float32, w*h), Dx: 3, Dy: 5}
		for i := range ter.Elev {
			ter.Elev[i] = float32(rng.Float64() * relief)
		}
		return ter
	}
	walls := func(w, h int) Terrain {
		ter := plane(w, h, 2)
		for r := range h {
			for c := range w {
				if c%9 == 4 || r%11 == 6 {
					ter.Elev[r*w+c] = 6
				}
				if (c/5+r/7)%4 == 0 {
					ter.Elev[r*w+c] = -3 // pits
				}
			}
		}
		return ter
	}
	def := ThesisParams()
	withS := func(s int) Params { p := def; p.Sectors = s; return p }
	curved := def
	curved.EarthCurvature, curved.Refraction = true, 0.13
	far := def
	far.MaxDistance, far.Margin = 400, 0.05
	hgtFar := withS(360)
	hgtFar.MaxDistance = 1500
	tall := def
	tall.ObserverHeight, tall.TargetHeight = 0, 0 // ties: targets at the eye's level
	cons := withS(256)                            // conservative steps cost several reads: fewer sectors keep the test quick
	cons.LOS = LOSConservative
	consCurved := curved
	consCurved.Sectors, consCurved.LOS = 256, LOSConservative
	region := cons
	region.LOS = LOSRegion
	regionFar := region
	regionFar.MaxDistance = 400
	regionV2 := region
	regionV2.Version = 2
	regionV3, regionV3Far := region, regionFar
	regionV3.Version, regionV3Far.Version = 3, 3
	cases := []struct {
		name   string
		ter    Terrain
		p      Params
		nodata float64 // fraction of nodata cells
	}{
		{"1x1", plane(1, 1, 5), def, 0},
		{"1x9", random(1, 9, 10), def, 0},
		{"9x1", random(9, 1, 10), withS(8), 0},
		{"5x5", random(5, 5, 10), def, 0},
		{"12x9", random(12, 9, 30), withS(180), 0},
		{"flat 37x29", plane(37, 29, 5), def, 0},
		{"walls 41x38", walls(41, 38), def, 0},
		{"walls 41x38 S=4096", walls(41, 38), withS(4096), 0},
		{"random 33x20 nodata", random(33, 20, 40), def, 0.15},
		{"walls 40x40 flat ties", walls(40, 40), tall, 0},
		{"hgt 64x64", cropWindow(t, "hgt-130x110", 30, 20, 64, 64), def, 0},
		{"hgt 70x45 S=360 2km", cropWindow(t, "hgt-130x110", 50, 40, 70, 45), hgtFar, 0},
		{"hgt 50x50 curved", cropWindow(t, "hgt-130x110", 0, 0, 50, 50), curved, 0},
		{"dsm 57x61", cropWindow(t, "dsm-120x136", 40, 60, 57, 61), def, 0},
		{"dsm 48x48 400m margin", cropWindow(t, "dsm-120x136", 0, 0, 48, 48), far, 0},
		{"dsm 40x44 nodata S=180", cropWindow(t, "dsm-120x136", 70, 80, 40, 44), withS(180), 0.05},
		{"conservative walls 41x38", walls(41, 38), cons, 0},
		{"conservative random 33x20 nodata", random(33, 20, 40), cons, 0.15},
		{"conservative hgt 50x50 curved", cropWindow(t, "hgt-130x110", 0, 0, 50, 50), consCurved, 0},
		{"conservative dsm 57x61", cropWindow(t, "dsm-120x136", 40, 60, 57, 61), cons, 0},
		{"region walls 41x38", walls(41, 38), region, 0},
		{"region random 33x20 nodata", random(33, 20, 40), region, 0.15},
		{"region hgt 50x50", cropWindow(t, "hgt-130x110", 0, 0, 50, 50), region, 0},
		{"region dsm 48x48 400m", cropWindow(t, "dsm-120x136", 0, 0, 48, 48), regionFar, 0},
		{"region-v2 walls 41x38", walls(41, 38), regionV2, 0},
		{"region-v3 walls 41x38", walls(41, 38), regionV3, 0},
		{"region-v3 random 33x20 nodata", random(33, 20, 40), regionV3, 0.15},
		{"region-v3 hgt 50x50", cropWindow(t, "hgt-130x110", 0, 0, 50, 50), regionV3, 0},
		{"region-v3 dsm 48x48 400m", cropWindow(t, "dsm-120x136", 0, 0, 48, 48), regionV3Far, 0},
	}
	for i, tc := range cases {
		// -short (make test) runs the small cases and one real crop in four
		// (the default and region models'); make check runs them all.
		if testing.Short() && tc.ter.Width*tc.ter.Height > 1700 && i%4 != 1 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			var nodata []bool
			if tc.nodata > 0 {
				nodata = make([]bool, len(tc.ter.Elev))
				for i := range nodata {
					nodata[i] = rng.Float64() < tc.nodata
				}
			}
			checkBlocks(t, tc.ter, tc.p, nodata)
		})
	}
}

// TestBlockWholeCrops runs checkBlocks on both real crops whole (every
// observer of 14,300 and 16,320) at the bake's default S.
func TestBlockWholeCrops(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, name := range []string{"hgt-130x110", "dsm-120x136"} {
		t.Run(name, func(t *testing.T) { checkBlocks(t, readCrop(t, name), ThesisParams(), nil) })
	}
}

// TestUnionOf checks unionOf's bit tricks against the definition.
func TestUnionOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100000 {
		v := uint16(rng.Uint32())
		h := uint16(rng.Uint32()) &^ v
		if rng.IntN(4) == 0 {
			h = ^v
		}
		var want UnionClasses
		for j, ls := range unionLanes {
			switch {
			case v&ls != 0:
				want.Vis |= 1 << j
			case h&ls == ls:
				want.Hid |= 1 << j
			}
		}
		if got := unionOf(v, h); got != want {
			t.Fatalf("unionOf(%016b, %016b) = %+v, want %+v", v, h, got, want)
		}
	}
}
