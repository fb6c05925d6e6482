package horizon

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// TestConservative: on windows of both real terrains (and the DSM at 256
// sectors, where the sector model's misses are largest), no cell the
// conservative mode hides is visible by the exact line of sight sampled at
// 16 points per cell, both for Viewshed and for Classify's pyramid; and it
// keeps most of the sector model's hidden cells (logged).
func TestConservative(t *testing.T) {
	size := 64
	if *fullFidelity {
		size = 160
	}
	for _, tc := range []struct {
		name     string
		col, row int
		sectors  int
	}{
		{"N44W072.hgt", 780, 820, 1024},
		{"annarbor-dsm-2ft.tif", 250, 300, 1024},
		{"annarbor-dsm-2ft.tif", 250, 300, 256},
	} {
		ter := loadWindow(t, tc.name, heightmap.Window{Col: tc.col, Row: tc.row, Width: size, Height: size})
		p := DefaultParams()
		p.Sectors = tc.sectors
		sector, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		p.Conservative = true
		cons, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		ws, wc := sector.NewWorker(), cons.NewWorker()
		lg := losref.Grid{Width: size, Height: size, Elev: ter.Elev}
		rng := rand.New(rand.NewPCG(11, uint64(tc.sectors)))
		lv := NewLevels(size, size)
		hiddenS, hiddenC, falseHidden, sectorFalse := 0, 0, 0, 0
		for range 10 {
			oc, or := rng.IntN(size), rng.IntN(size)
			bs, _ := ws.Viewshed(oc, or, Bitmap{})
			bc, _ := wc.Viewshed(oc, or, Bitmap{})
			if err := wc.Classify(oc, or, lv, nil); err != nil {
				t.Fatal(err)
			}
			for r := range size {
				for c := range size {
					if !bs.Visible(c, r) {
						hiddenS++
					}
					if bc.Visible(c, r) {
						continue
					}
					hiddenC++
					if levelStatus(lv, size, c, r) != QuadHidden {
						t.Fatalf("%s: Classify and Viewshed differ at (%d,%d) from (%d,%d)", tc.name, c, r, oc, or)
					}
					if losref.VisibleSampled(lg, oc, or, c, r, 1.8, 1.8, 16) {
						falseHidden++
					}
				}
			}
			for r := range size {
				for c := range size {
					if !bs.Visible(c, r) && losref.VisibleSampled(lg, oc, or, c, r, 1.8, 1.8, 16) {
						sectorFalse++
					}
				}
			}
		}
		t.Logf("%s %d² S=%d, 10 observers: conservative hides %d cells (%.1f%% of the sector model's %d); false-hidden against exact LOS: conservative %d, sector model %d",
			tc.name, size, tc.sectors, hiddenC, 100*float64(hiddenC)/float64(max(hiddenS, 1)), hiddenS, falseHidden, sectorFalse)
		if falseHidden != 0 {
			t.Errorf("%s S=%d: %d cells hidden by the conservative mode are visible by exact line of sight", tc.name, tc.sectors, falseHidden)
		}
	}
}

// levelStatus reads cell (c,r)'s status from a pyramid of a width-wide
// grid: the first quad from the top that is not mixed.
func levelStatus(lv Levels, width, c, r int) uint8 {
	for l := len(lv) - 1; l >= 0; l-- {
		cols := (width + 1<<l - 1) >> l
		if v := lv[l][(r>>l)*cols+c>>l]; v != QuadMixed || l == 0 {
			return v
		}
	}
	return QuadMixed
}
