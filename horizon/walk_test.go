package horizon

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
)

// TestEarlyStopKeepsProfiles: every profile slot a cell can read is the same
// whether the lines stop early (bound from the rest of the line) or are
// walked to the grid's edge, on both real terrains, with and without Earth
// curvature, and whether the bound comes from the line's own tiles or from
// its observer tile's band (observers visited several per tile, as the bake
// does).
func TestEarlyStopKeepsProfiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		win    heightmap.Window
		curved bool
	}{
		{"N44W072.hgt", heightmap.Window{Col: 600, Row: 650, Width: 200, Height: 150}, false},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 100, Row: 100, Width: 180, Height: 180}, false},
		{"N44W072.hgt", heightmap.Window{Col: 100, Row: 100, Width: 130, Height: 170}, true},
		{"N44W072.hgt", heightmap.Window{Col: 400, Row: 500, Width: 12, Height: 9}, false}, // a pyramid shallower than the band's tiles
	} {
		t.Run(tc.name, func(t *testing.T) {
			ter := loadWindow(t, tc.name, tc.win)
			p := ThesisParams()
			p.EarthCurvature, p.Refraction = tc.curved, 0.13
			m, err := New(ter, p)
			if err != nil {
				t.Fatal(err)
			}
			w := m.NewWorker()
			full := make([]float32, len(w.prof))
			inf := make([]float32, len(w.suf))
			for i := range inf {
				inf[i] = float32(math.Inf(1))
			}
			rng := rand.New(rand.NewPCG(5, 6))
			walked, total, banded := 0, 0, 0
			for i := range 200 {
				if i%5 == 0 { // a new tile: the first walks use suffixMax, the rest the band
					tc, tr := rng.IntN(ter.Width)>>bandShift, rng.IntN(ter.Height)>>bandShift
					w.band.tx, w.band.ty = tc, tr
				}
				col := min(w.band.tx<<bandShift+rng.IntN(1<<bandShift), ter.Width-1)
				row := min(w.band.ty<<bandShift+rng.IntN(1<<bandShift), ter.Height-1)
				if i%5 == 0 {
					w.band.tx = -1
				}
				w.walk(col, row)
				if w.band.ok {
					banded++
				}
				for k := range w.n {
					start, n := int(m.lineStart[k]), m.steps(k, col, row)
					a0 := row*ter.Width + col + int(m.secMajor[k])
					if m.secDrop == nil {
						walkLine(full[start+1:start+1+n], m.recip[1:n+1], ter.Elev, inf, a0, int(m.secMajor[k]), int(m.secMinor[k]), m.secSlope[k], w.eye, m.secInv[k])
					} else {
						walkLineCurved(full[start+1:start+1+n], m.recip[1:n+1], ter.Elev, inf, a0, int(m.secMajor[k]), int(m.secMinor[k]), m.secSlope[k], w.eye, m.secInv[k], m.secDrop[k])
					}
					for j := 1; j <= n; j++ {
						got := w.prof[start+min(j, int(w.n[k]))]
						if got != full[start+j] {
							t.Fatalf("observer (%d,%d) sector %d step %d: %v after an early stop at %d, %v walked in full", col, row, k, j, got, w.n[k], full[start+j])
						}
					}
					walked += int(w.n[k])
					total += n
				}
			}
			t.Logf("walked %.1f%% of the steps; %d of 200 observers used a band", 100*float64(walked)/float64(total), banded)
			if walked == total && max(ter.Width, ter.Height) > 2<<chunkShift {
				t.Errorf("no line stopped early")
			}
			if banded != 200-40*bandAfter {
				t.Errorf("%d observers used a band, want %d", banded, 200-40*bandAfter)
			}
		})
	}
}
